/**
 * Repaints asked for at the same point in the stream (watchers that caught up together) are
 * serialized once and are the same bytes; output in between gives the next one a fresh screen.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SeatTerminal } from './terminal.js';
import type { FromPty as FromPtyToMain, PtyToRelay } from './protocol.js';

/** Everything a terminal posts: to the main thread, and its frames to the relay. */
type FromPty = FromPtyToMain | PtyToRelay;

let term: SeatTerminal | null = null;
afterEach(() => { term?.kill(); term = null; });

const payload = (m: Extract<FromPty, { t: 'repaint' }>): string => Buffer.from(m.frame).toString('utf8');

describe('shared repaints', () => {
  it('repaints asked for together are serialized once, and output after them makes the next one fresh', async () => {
    const posts: FromPty[] = [];
    // A shell that prints once, waits for a line, prints again, and stays.
    const script = 'printf "first \\033[31mred\\033[0m\\n"; read line; printf "second %s\\n" "$line"; sleep 30';
    term = new SeatTerminal(
      { id: 1, shell: '/bin/sh', cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cols: 80, rows: 24 },
      { file: '/bin/sh', args: ['-c', script], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, marks: false },
      (m) => posts.push(m),
    );
    term.setViewers(3);
    const repaints = (): Array<Extract<FromPty, { t: 'repaint' }>> => posts.filter((m): m is Extract<FromPty, { t: 'repaint' }> => m.t === 'repaint');
    const until = async (ok: () => boolean): Promise<void> => { while (!ok()) await new Promise((r) => setTimeout(r, 10)); };
    await until(() => term!.screen().text.includes('first red'));

    term.repaint(1);
    term.repaint(2);
    term.repaint(3);
    await until(() => repaints().length === 3);
    const [a, b, c] = repaints();
    expect([a.viewer, b.viewer, c.viewer]).toEqual([1, 2, 3]);
    expect(payload(a)).toContain('first');
    expect(payload(b)).toBe(payload(a));
    expect(payload(c)).toBe(payload(a));
    expect(term.serializations).toBe(1);

    term.write('typed\r');
    await until(() => term!.screen().text.includes('second typed'));
    term.repaint(1);
    await until(() => repaints().length === 4);
    expect(payload(repaints()[3])).toContain('second typed');
    expect(term.serializations).toBe(2);
  });
});
