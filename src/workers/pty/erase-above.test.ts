/**
 * An erase above (CSI 1 J) from the last column of a fresh screen's bottom line leaves the screen
 * model drawing: xterm.js's own handler throws there, and every byte after it was never drawn.
 * The screen model and a real terminal on a real PTY; the shell is a small program that prints
 * the sequence and then a line (the file says so).
 */
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { eraseReachable, mendEraseAbove } from '../../shared/term-erase-above.js';
import { SeatTerminal } from './terminal.js';
import { modelThrowRig } from '../../../test/helpers/model-throws.js';
import { wait } from './commands.js';

type Term = InstanceType<typeof xtermHeadless.Terminal>;
const COLS = 80;
const ROWS = 24;
const make = (mended: boolean, scrollback = 1000): Term => {
  const t = new xtermHeadless.Terminal({ cols: COLS, rows: ROWS, scrollback, allowProposedApi: true, logLevel: 'off' });
  if (mended) mendEraseAbove(t);
  return t;
};
/** A write's callback, or a sentence when the model never finished it. */
const write = (t: Term, s: string): Promise<void> => new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the screen model never finished the write')), 2_000);
  t.write(s, () => { clearTimeout(timer); resolve(); });
});
const text = (t: Term): string[] => Array.from({ length: ROWS }, (_, y) => t.buffer.active.getLine(t.buffer.active.baseY + y)?.translateToString(true) ?? '');

const rig = modelThrowRig();

describe('an erase above from the bottom-right corner of a fresh screen', () => {
  it('this version of xterm.js still has the erase steps the mend runs', () => {
    expect(eraseReachable(make(false))).toBe(true);
  });

  for (const [what, seq] of [['CSI 1 J', '\x1b[1J'], ['the selective CSI ? 1 J', '\x1b[?1J']] as const) {
    it(`(${what}) erases the screen and leaves the model drawing what comes after it`, async () => {
      const t = make(true);
      await write(t, 'one\r\ntwo\r\nthree');
      await write(t, `\x1b[${ROWS};${COLS}H${seq}`);
      await write(t, '\x1b[1;1Hafter');
      expect(text(t).slice(0, 3)).toEqual(['after', '', '']);
      expect(text(t).every((l, y) => y === 0 || l === '')).toBe(true);
    });
  }

  it('leaves the erase on a screen with scrollback to xterm.js, which does not throw there', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}\r\n`).join('');
    const mended = make(true);
    const reference = make(false);
    for (const t of [mended, reference]) {
      await write(t, `${lines}\x1b[${ROWS};${COLS}Hx\x1b[${ROWS};${COLS}H\x1b[1J\x1b[3;1Hafter`);
    }
    expect(text(mended)).toEqual(text(reference));
  });

  it('leaves a real terminal drawing the output after it', async () => {
    rig.letThrowsGo();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const program = String.raw`process.stdout.write('\x1b[24;80H\x1b[1J'); setTimeout(() => process.stdout.write('\x1b[1;1Hdrawn after the erase'), 200); setInterval(() => undefined, 1000);`;
    const term = rig.started(new SeatTerminal(
      { id: 1, shell: process.execPath, cwd: '/', env, cols: COLS, rows: ROWS },
      { file: process.execPath, args: ['-e', program], env, marks: false },
      () => undefined,
    ));
    const r = await wait(term, 'text', 'drawn after the erase', 5_000);
    expect(r.done).toBe(true);
  });
});
