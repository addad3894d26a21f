import { describe, expect, it } from 'vitest';
import { encodeKey } from './keys.js';
import { parseStty, secretWanted } from './echo.js';

describe('named keys', () => {
  it.each([
    ['Enter', false, '\r'], ['Tab', false, '\t'], ['Escape', false, '\x1b'], ['Ctrl-C', false, '\x03'], ['ctrl-d', false, '\x04'],
    ['Ctrl-Z', false, '\x1a'], ['Ctrl-L', false, '\x0c'], ['Up', false, '\x1b[A'], ['Up', true, '\x1bOA'], ['Left', true, '\x1bOD'],
    ['Alt-b', false, '\x1bb'], ['Shift-Tab', false, '\x1b[Z'], ['Ctrl-Right', false, '\x1b[1;5C'], ['F5', false, '\x1b[15~'], ['Backspace', false, '\x7f'],
    // As tmux and Emacs write them, and in caret notation.
    ['C-c', false, '\x03'], ['M-b', false, '\x1bb'], ['S-Tab', false, '\x1b[Z'], ['C-M-x', false, '\x1b\x18'], ['^C', false, '\x03'], ['^[', false, '\x1b'],
    // A single letter is that letter, not a modifier.
    ['c', false, 'c'], ['-', false, '-'],
  ])('sends %s (app cursor %s) as the bytes a terminal sends', (name, app, bytes) => {
    expect(encodeKey(name, app)).toBe(bytes);
  });

  it('refuses a key it does not know, naming the keys it does', () => {
    expect(() => encodeKey('Hyper-Q', false)).toThrow(/not a key forge knows/);
    expect(() => encodeKey('Bogus', false)).toThrow(/Enter, Tab, Escape/);
  });
});

describe('termios', () => {
  it('reads a password prompt as ECHO off in canonical mode, and readline as neither', () => {
    const secret = parseStty('isig icanon iexten -echo echoe -echok');
    const readline = parseStty('isig -icanon iexten -echo echoe');
    const plain = parseStty('isig icanon iexten echo echoe');
    expect(secretWanted(secret)).toBe(true);
    expect(secretWanted(readline)).toBe(false);
    expect(secretWanted(plain)).toBe(false);
  });
});
