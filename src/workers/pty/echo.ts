/**
 * ECHO off, read from the PTY's termios: `stty -F <slave> -a` on the terminal's own pts device.
 * A program reading a secret (sudo, ssh, `read -s`) turns ECHO off and keeps canonical mode;
 * readline and full-screen programs turn off both, so "a password is wanted" is ECHO off with
 * ICANON on.
 */
import { execFile } from 'node:child_process';

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

export function readLineModes(ptsName: string): Promise<LineModes | null> {
  return new Promise((resolve) => {
    execFile('stty', ['-F', ptsName, '-a'], { timeout: STTY_TIMEOUT_MS }, (err, stdout) => {
      resolve(err ? null : parseStty(stdout));
    });
  });
}

export function secretWanted(m: LineModes | null): boolean {
  return m !== null && !m.echo && m.icanon;
}
