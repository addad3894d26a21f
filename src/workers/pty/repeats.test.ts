/**
 * The screen model's parser bounds the counts it runs once per count, as xterm.js parsed them:
 * forms the byte stream's clamp cannot read (a control inside the count, a C1 introducer, a
 * count spread over two writes) answer at once, with the screen the bounded count gives.
 */
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { boundRepeats, repeatsReachable } from '../../shared/term-repeats.js';

type Term = InstanceType<typeof xtermHeadless.Terminal>;
const COLS = 80;
const ROWS = 24;
const make = (bounded: boolean): Term => {
  const t = new xtermHeadless.Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true, logLevel: 'off' });
  if (bounded) boundRepeats(t);
  return t;
};
const write = (t: Term, s: string): Promise<void> => new Promise((r) => t.write(s, r));
const text = (t: Term): string => Array.from({ length: ROWS }, (_, y) => t.buffer.active.getLine(t.buffer.active.baseY + y)?.translateToString(true) ?? '').join('\n');
const LINES = Array.from({ length: 30 }, (_, i) => `line ${i}\r\n`).join('');

describe('the screen model bounds its repeat counts', () => {
  it('this version of xterm.js still has every handler the bounds run', () => {
    const t = make(false);
    expect(repeatsReachable(t)).toBe(true);
    t.dispose();
  });

  const cases: Array<{ what: string; hostile: string[]; same: string }> = [
    { what: 'a delete-lines count with a control inside it', hostile: [`${LINES}\x1b[5;1H\x1b[214\x17483648Mend`], same: `${LINES}\x1b[5;1H\x17\x1b[${ROWS}Mend` },
    { what: 'a scroll-down count behind a C1 introducer', hostile: [`${LINES}\u009b2147483647Tend`], same: `${LINES}\x1b[${ROWS}Tend` },
    { what: 'a scroll-up count spread over two writes', hostile: [`${LINES}\x1b[21474`, '83647Send'], same: `${LINES}\x1b[${ROWS}Send` },
    { what: 'an insert-lines count', hostile: [`${LINES}\x1b[3;1H\x1b[2147483647Lend`], same: `${LINES}\x1b[3;1H\x1b[${ROWS}Lend` },
    { what: 'a tab-forward and a tab-back count', hostile: ['a\x1b[2147483647Ib\r\n\x1b[40Gc\x1b[2147483647Zd'], same: `a\x1b[${COLS}Ib\r\n\x1b[40Gc\x1b[${COLS}Zd` },
  ];
  for (const c of cases) {
    it(`${c.what} answers at once with the screen the bounded count gives`, async () => {
      const t = make(true);
      const reference = make(false);
      for (const part of c.hostile) await write(t, part);
      await write(reference, c.same);
      expect(text(t)).toBe(text(reference));
      t.dispose();
      reference.dispose();
    });
  }

  it('a repeat of the last character past a screenful writes one screenful of it, and no more', async () => {
    const t = make(true);
    const reference = make(false);
    await write(t, 'x\x1b[2147483647b!');
    await write(reference, `x\x1b[${COLS * ROWS}b!`);
    expect(text(t)).toBe(text(reference));
    expect(text(t)).toContain('x'.repeat(COLS));
    t.dispose();
    reference.dispose();
  });

  it('counts within the bound run as they came', async () => {
    const t = make(true);
    const reference = make(false);
    const s = `${LINES}\x1b[5;1H\x1b[3M\x1b[2T\x1b[1Sx\x1b[4b\x1b[2I!`;
    await write(t, s);
    await write(reference, s);
    expect(text(t)).toBe(text(reference));
    t.dispose();
    reference.dispose();
  });
});
