import { describe, expect, it } from 'vitest';
import { inForgeWords } from './driver-errors.js';
import type { Tab } from './tabs.js';

const tab = { number: 3, pageId: 'p-1' } as Tab;

/** A driver error as Playwright throws one: its name and its message. */
function driverError(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

describe('a driver timeout in the words an agent reads', () => {
  it('names the time the driver waited', () => {
    const e = inForgeWords(driverError('TimeoutError', 'locator.click: Timeout 15000ms exceeded.'), tab, 'clicking');
    expect(e.kind).toBe('timeout');
    expect(e.message).toContain('did not finish clicking within 15 s;');
  });

  it('a timeout whose message names no time says "in time", never a question mark', () => {
    const e = inForgeWords(driverError('TimeoutError', 'waiting for fonts to load'), tab, 'taking a screenshot');
    expect(e.kind).toBe('timeout');
    expect(e.message).toContain('the page in tab 3 (p-1) did not finish taking a screenshot in time;');
    expect(e.message).not.toContain('?');
  });
});
