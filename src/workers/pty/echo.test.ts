/**
 * A terminal's line modes are read in the process, from the PTY's master, and agree with what
 * `stty` reads on the shell's side: a program that turned ECHO off is seen as reading a secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import nodePty from 'node-pty';
import type { IPty } from 'node-pty';
import { ptyModesNative, readLineModes, readLineModesWithStty, secretWanted } from './echo.js';

const started: IPty[] = [];
afterEach(() => { for (const p of started.splice(0)) p.kill(); });

function shell(script: string): Promise<IPty & { fd: number; ptsName: string }> {
  const p = nodePty.spawn('/bin/sh', ['-c', script], { name: 'xterm-256color', cols: 80, rows: 24, cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  started.push(p);
  // The script says when its modes are set.
  return new Promise((resolve) => { p.onData((d) => { if (d.includes('set')) resolve(p as IPty & { fd: number; ptsName: string }); }); });
}

describe('line modes', () => {
  it('are read in the process from the master, as stty reads them on the shell side', async () => {
    expect(ptyModesNative).not.toBeNull();
    const secret = await shell('stty -echo; echo set; sleep 5');
    const plain = await shell('echo set; sleep 5');
    expect(typeof secret.fd).toBe('number');
    const fromMaster = await readLineModes(secret);
    expect(fromMaster).toEqual({ echo: false, icanon: true });
    expect(fromMaster).toEqual(await readLineModesWithStty(secret.ptsName));
    expect(secretWanted(fromMaster)).toBe(true);
    const plainModes = await readLineModes(plain);
    expect(plainModes).toEqual({ echo: true, icanon: true });
    expect(plainModes).toEqual(await readLineModesWithStty(plain.ptsName));
  });

  it('a terminal that is gone reads as nothing rather than failing', async () => {
    expect(await readLineModes({ fd: 987654, ptsName: '/dev/pts/987654' })).toBeNull();
  });
});
