/**
 * ECHO off, read from the PTY's termios. A program reading a secret (sudo, ssh, `read -s`) turns
 * ECHO off and keeps canonical mode; readline and full-screen programs turn off both, so "a
 * password is wanted" is ECHO off with ICANON on. Read in the process through native/ptymodes
 * (tcgetattr on the PTY's master, which Linux answers with the shell side's termios); where that
 * addon did not build, `stty -F <slave> -a` on the terminal's own pts device, which costs a fork of
 * the server (~18 ms of the worker thread blocked, measured with a 300 MB process).
 */
import { execFile } from 'node:child_process';
import { loadAddon } from '../addon.js';

interface PtyModesNative { lineModes(fd: number): LineModes }

/** The addon, or null where it did not build (then termios is read by spawning stty). */
export const ptyModesNative = loadAddon<PtyModesNative>('forge-ptymodes').addon;

/** Bound on one termios read, ms: stty on a local pts answers in a few ms. */
const STTY_TIMEOUT_MS = 2000;

export interface LineModes { echo: boolean; icanon: boolean }

export function parseStty(text: string): LineModes | null {
  const flags = new Set(text.split(/\s+/));
  const echo = flags.has('echo') ? true : flags.has('-echo') ? false : null;
  const icanon = flags.has('icanon') ? true : flags.has('-icanon') ? false : null;
  if (echo === null || icanon === null) return null;
  return { echo, icanon };
}

/** The terminal's line modes: from the master fd in the process when it can, else from stty on the pts. */
export function readLineModes(pty: { fd?: number; ptsName: string }): Promise<LineModes | null> {
  if (ptyModesNative && typeof pty.fd === 'number') {
    try {
      return Promise.resolve(ptyModesNative.lineModes(pty.fd));
    } catch {
      return Promise.resolve(null); // the terminal is gone
    }
  }
  return readLineModesWithStty(pty.ptsName);
}

export function readLineModesWithStty(ptsName: string): Promise<LineModes | null> {
  return new Promise((resolve) => {
    execFile('stty', ['-F', ptsName, '-a'], { timeout: STTY_TIMEOUT_MS }, (err, stdout) => {
      resolve(err ? null : parseStty(stdout));
    });
  });
}

export function secretWanted(m: LineModes | null): boolean {
  return m !== null && !m.echo && m.icanon;
}
