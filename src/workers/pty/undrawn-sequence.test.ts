/**
 * A sequence the screen model cannot take is skipped and said, and the model draws on: a handler
 * that throws no longer stops xterm.js's write queue for good. No sequence is known to throw in
 * this xterm.js now that the erase above is mended, so the throwing handlers here are the tests'
 * own (an OSC handler that throws, registered as the parser's own handlers are): a fake standing
 * in for the next such defect. The model is the real @xterm/headless, and the last case runs a
 * real terminal on a real PTY.
 */
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { guardHandlers, type CaughtThrow } from '../../shared/term-handler-guard.js';
import { SeatTerminal } from './terminal.js';
import { modelThrowRig } from '../../../test/helpers/model-throws.js';
import { wait } from './commands.js';
import type { FromPty } from './protocol.js';

type Term = InstanceType<typeof xtermHeadless.Terminal>;
const THROWING_OSC = 7777;
const make = (): Term => new xtermHeadless.Terminal({ cols: 40, rows: 5, allowProposedApi: true, logLevel: 'off' });
const throwing = (t: Term): void => { t.parser.registerOscHandler(THROWING_OSC, () => { throw new TypeError('the handler failed'); }); };
/** A write's callback, or false when the model never finished it. */
const written = (t: Term, s: string): Promise<boolean> => new Promise((resolve) => {
  const timer = setTimeout(() => resolve(false), 1_000);
  t.write(s, () => { clearTimeout(timer); resolve(true); });
});
const line = (t: Term, y: number): string => t.buffer.active.getLine(y)?.translateToString(true) ?? '';

const rig = modelThrowRig();

describe('a sequence the screen model cannot take', () => {
  it('without the guard, stops the model for good: nothing after it is ever drawn (the defect the guard mends)', async () => {
    rig.letThrowsGo();
    const t = make();
    throwing(t);
    expect(await written(t, `before\x1b]${THROWING_OSC};x\x07after`)).toBe(false);
    expect(await written(t, '\r\nnext line')).toBe(false);
    expect(line(t, 1)).toBe('');
  });

  it('is skipped and heard, and every byte after it is drawn, in the same write and the next', async () => {
    const t = make();
    throwing(t);
    const heard: CaughtThrow[] = [];
    expect(guardHandlers(t, (c) => heard.push(c))).toBe(true);
    expect(await written(t, `before\x1b]${THROWING_OSC};x\x07after`)).toBe(true);
    expect(await written(t, '\r\nnext line')).toBe(true);
    expect(line(t, 0)).toBe('beforeafter');
    expect(line(t, 1)).toBe('next line');
    expect(heard).toEqual([{ where: `an OSC string (${THROWING_OSC})`, message: 'the handler failed' }]);
  });

  it('leaves the parser between sequences when the throw comes from outside any guarded handler, so only the rest of that write is lost', async () => {
    const t = make();
    const heard: CaughtThrow[] = [];
    guardHandlers(t, (c) => heard.push(c));
    // Registered after the guard, so not wrapped: the write step's own net catches it.
    throwing(t);
    expect(await written(t, `before\x1b]${THROWING_OSC};x\x07lost`)).toBe(true);
    expect(await written(t, '\r\n\x1b[1mnext\x1b[0m line')).toBe(true);
    expect(line(t, 0)).toBe('before');
    expect(line(t, 1)).toBe('next line');
    expect(heard.map((c) => c.where)).toEqual(['the rest of one write']);
  });

  it('leaves a real terminal drawing the output after it, and the terminal says it once a second at most', async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    process.env.FORGE_TEST_MODEL_THROW_OSC = String(THROWING_OSC);
    const said: FromPty[] = [];
    const program = String.raw`for (let i = 0; i < 50; i++) process.stdout.write('\x1b]7777;x\x07'); setTimeout(() => process.stdout.write('drawn after the sequences'), 200); setInterval(() => undefined, 1000);`;
    let term: SeatTerminal;
    try {
      // The model's test hook: its OSC 7777 handler throws (read as the terminal starts).
      term = rig.started(new SeatTerminal(
        { id: 1, shell: process.execPath, cwd: '/', env, cols: 80, rows: 24 },
        { file: process.execPath, args: ['-e', program], env, marks: false },
        (m) => { said.push(m as FromPty); },
      ));
    } finally {
      delete process.env.FORGE_TEST_MODEL_THROW_OSC;
    }
    const r = await wait(term, 'text', 'drawn after the sequences', 5_000);
    expect(r.done).toBe(true);
    const undrawn = said.filter((m) => m.t === 'undrawn');
    expect(undrawn.length).toBeGreaterThanOrEqual(1);
    expect(undrawn.length).toBeLessThanOrEqual(2);
    expect(undrawn[0]).toMatchObject({ id: 1, where: `an OSC string (${THROWING_OSC})`, message: expect.stringContaining('FORGE_TEST_MODEL_THROW_OSC') });
  });
});
