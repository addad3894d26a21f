import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { CountClamp, LINE_COUNT_MAX, REPEAT_COUNT_MAX } from './counts.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

describe('the counts a terminal runs once per count are bounded', () => {
  it('a huge delete-lines, insert-lines, scroll and repeat count is written as its bound; the rest of the read is untouched', () => {
    const c = new CountClamp();
    expect(dec(c.pass(enc('a\x1b[99999999Mb\x1b[5Mc')))).toBe(`a\x1b[${LINE_COUNT_MAX}Mb\x1b[5Mc`);
    expect(dec(c.pass(enc('\x1b[12345678L\x1b[2;99999999S\x1b[?99999999T')))).toBe(`\x1b[${LINE_COUNT_MAX}L\x1b[2;${LINE_COUNT_MAX}S\x1b[?${LINE_COUNT_MAX}T`);
    expect(dec(c.pass(enc('x\x1b[99999999b')))).toBe(`x\x1b[${REPEAT_COUNT_MAX}b`);
    // Other sequences keep their counts: a cursor move, colours, a window op.
    expect(dec(c.pass(enc('\x1b[99999999C\x1b[38;2;1;2;3m\x1b[65536;2;99999999t')))).toBe('\x1b[99999999C\x1b[38;2;1;2;3m\x1b[65536;2;99999999t');
  });

  it('a read with nothing to bound passes as the same bytes', () => {
    const c = new CountClamp();
    const read = enc('plain text \x1b[31mred\x1b[0m\r\n');
    expect(c.pass(read)).toBe(read);
  });

  it('a sequence cut between two reads is bounded whole: its start waits for the next read', () => {
    const c = new CountClamp();
    expect(dec(c.pass(enc('ab\x1b[9999')))).toBe('ab');
    expect(dec(c.pass(enc('9999')))).toBe('');
    expect(dec(c.pass(enc('Mcd')))).toBe(`\x1b[${LINE_COUNT_MAX}Mcd`);
    expect(dec(c.pass(enc('e\x1b')))).toBe('e');
    expect(dec(c.pass(enc('[2Mf')))).toBe('\x1b[2Mf');
  });

  it('a screen model fed the bounded bytes of printf \'\\e[99999999M\' answers at once, with the screen it would have had', async () => {
    const c = new CountClamp();
    const t = new xtermHeadless.Terminal({ cols: 80, rows: 24, allowProposedApi: true });
    const reference = new xtermHeadless.Terminal({ cols: 80, rows: 24, allowProposedApi: true });
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}\r\n`).join('');
    await new Promise<void>((r) => t.write(c.pass(enc(`${lines}\x1b[5;1H\x1b[99999999Mend`)), r));
    await new Promise<void>((r) => reference.write(`${lines}\x1b[5;1H\x1b[24Mend`, r));
    const text = (term: typeof t): string => Array.from({ length: 24 }, (_, y) => term.buffer.active.getLine(term.buffer.active.baseY + y)?.translateToString(true) ?? '').join('\n');
    expect(text(t)).toBe(text(reference));
    t.dispose();
    reference.dispose();
  });
});
