/**
 * How output is cut into frames. A stream whose every PTY read is under 4 KB still leaves in
 * gathered frames (a frame per read made five times the messages and acks of a flood on a busy
 * machine); output that trickles, an echo at a time, leaves frame by frame, none held back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SeatTerminal } from './terminal.js';
import { TERM_HEADER_BYTES } from '../../shared/protocol.js';

let term: SeatTerminal | null = null;
afterEach(() => { term?.kill(); term = null; });

/** Runs `program` (node's own code) in a terminal with viewers, and resolves with the output frames' payload sizes once `total` bytes came. */
async function frameSizes(program: string, total: number): Promise<number[]> {
  const sizes: number[] = [];
  let bytes = 0;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  await new Promise<void>((done) => {
    term = new SeatTerminal(
      { id: 1, shell: process.execPath, cwd: '/', env, cols: 80, rows: 24 },
      { file: process.execPath, args: ['-e', `${program}; setTimeout(() => {}, 30000)`], env, marks: false },
      (m) => {
        if (m.t !== 'output') return;
        sizes.push(m.frame.byteLength - TERM_HEADER_BYTES);
        bytes += m.frame.byteLength - TERM_HEADER_BYTES;
        if (bytes >= total) done();
      },
    );
    term.setViewers(1);
  });
  return sizes;
}

describe('output frames', () => {
  it('a stream of reads each under 4 KB leaves in gathered frames, several reads to a frame', async () => {
    const CHUNKS = 150;
    const sizes = await frameSizes(`let i = 0; const t = setInterval(() => { process.stdout.write('x'.repeat(3000)); if (++i === ${CHUNKS}) clearInterval(t); }, 3)`, CHUNKS * 3000);
    expect(sizes.length).toBeLessThanOrEqual(CHUNKS / 2);
  });

  it('output that trickles, a few bytes at a time, leaves frame by frame', async () => {
    const WRITES = 12;
    const sizes = await frameSizes(`let i = 0; const t = setInterval(() => { process.stdout.write('key' + (i % 10)); if (++i === ${WRITES}) clearInterval(t); }, 40)`, WRITES * 4);
    // Two writes may land in one read on a busy machine; a held trickle would come as one or two frames.
    expect(sizes.length).toBeGreaterThanOrEqual(WRITES / 2);
  });
});
