/**
 * For the tests of a screen model that throws: xterm.js's throw reaches the process from its write
 * queue's timer, as it reaches the terminals' thread, so a test that makes one hears it and lets
 * it go; and the real terminal a test started is killed after it.
 */
import { afterEach } from 'vitest';
import type { SeatTerminal } from '../../src/workers/pty/terminal.js';

export function modelThrowRig(): { letThrowsGo: () => void; started: (t: SeatTerminal) => SeatTerminal } {
  let swallow: ((e: Error) => void) | undefined;
  let term: SeatTerminal | null = null;
  afterEach(() => {
    if (swallow) process.off('uncaughtException', swallow);
    swallow = undefined;
    term?.kill('SIGKILL');
    term = null;
  });
  return {
    letThrowsGo: () => { swallow = () => undefined; process.on('uncaughtException', swallow); },
    started: (t) => { term = t; return t; },
  };
}
