/**
 * A repaint asked for in the middle of a flood continues into the frames after it: a viewer fed
 * only that repaint and the later frames draws the screen the server ends with, every line once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { SeatTerminal } from './terminal.js';
import type { FromPty as FromPtyToMain, PtyToRelay } from './protocol.js';

/** Everything a terminal posts: to the main thread, and its frames to the relay. */
type FromPty = FromPtyToMain | PtyToRelay;
import { readTermHeader } from '../../shared/terminal.js';

const { Terminal } = xtermHeadless;
const COLS = 80;
const ROWS = 24;
const LAST = 300_000;

let term: SeatTerminal | null = null;
afterEach(() => { term?.kill(); term = null; });

type Frame = { seq: number; keyframe: boolean; payload: Uint8Array; viewer: number | null };

const read = (m: Extract<FromPty, { t: 'output' | 'repaint' }>): Frame => {
  const h = readTermHeader(new DataView(m.frame.buffer, m.frame.byteOffset, m.frame.byteLength));
  return { seq: h.seq, keyframe: (h.flags & 1) !== 0, payload: m.frame.subarray(h.hdrlen), viewer: m.t === 'repaint' ? m.viewer : null };
};

describe('repaints during a flood', () => {
  it('a repaint asked for mid-flood and the frames after it draw the screen the server ends with', async () => {
    const frames: Frame[] = [];
    // ~2 MB of numbered lines, then the shell stays so the model can be read at the end.
    const script = `seq 1 ${LAST}; sleep 30`;
    term = new SeatTerminal(
      { id: 1, shell: '/bin/sh', cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cols: COLS, rows: ROWS },
      { file: '/bin/sh', args: ['-c', script], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, marks: false },
      (m) => { if (m.t === 'output' || m.t === 'repaint') frames.push(read(m)); },
    );
    term.setViewers(3);
    const outputBytes = (): number => frames.reduce((n, f) => n + (f.keyframe ? 0 : f.payload.byteLength), 0);
    const until = async (ok: () => boolean): Promise<void> => { while (!ok()) await new Promise((r) => setTimeout(r, 2)); };

    await until(() => outputBytes() > 200_000);
    term.repaint(1);
    term.repaint(2);
    await until(() => outputBytes() > 900_000);
    term.repaint(3);
    await until(() => term!.screen().text.includes(String(LAST)));
    const expected = term.screen().text;

    const repaints = frames.filter((f) => f.keyframe);
    expect(repaints.map((f) => f.viewer).sort()).toEqual([1, 2, 3]);
    // The flood went on after each repaint: later frames exist, numbered on from it.
    for (const r of repaints) expect(frames.some((f) => !f.keyframe && f.seq === r.seq + 1)).toBe(true);
    for (const r of repaints) {
      const viewer = new Terminal({ cols: COLS, rows: ROWS, scrollback: 100, allowProposedApi: true });
      await new Promise<void>((done) => viewer.write(r.payload, done));
      let next = r.seq + 1;
      for (const f of frames) {
        if (f.keyframe || f.seq <= r.seq) continue;
        expect(f.seq).toBe(next++);
        viewer.write(f.payload);
      }
      await new Promise<void>((done) => viewer.write('', done));
      // Every line from the repaint's first on arrives once, in order: no gap, no duplicate.
      const text = Buffer.concat([r.payload, ...frames.filter((f) => !f.keyframe && f.seq > r.seq).map((f) => f.payload)]).toString('latin1');
      const numbers = text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]/g, ' ').split(/\s+/).filter(Boolean).map(Number);
      const breaks = numbers.filter((n, i) => i > 0 && n !== numbers[i - 1] + 1);
      expect(breaks).toEqual([]);
      expect(numbers[numbers.length - 1]).toBe(LAST);
      const lines: string[] = [];
      for (let y = 0; y < ROWS; y++) lines.push(viewer.buffer.active.getLine(viewer.buffer.active.baseY + y)!.translateToString(true));
      while (lines.length && lines[lines.length - 1] === '') lines.pop();
      expect(lines.join('\n')).toBe(expected);
      viewer.dispose();
    }
  });
});
