/**
 * The sweep of framebuffer directories left by dead servers removes only what is known to be
 * this user's and known dead: a live server's directory and another user's stay.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepDeadFramebuffers } from './host.js';

/** A pid that no process has now: a child that has exited and been reaped. */
function deadPid(): number {
  return spawnSync('/bin/true').pid!;
}

const made: string[] = [];
function fbDir(pid: number, tag: string): string {
  const dir = `/dev/shm/forge-fb-${pid}-sweep${tag}`;
  mkdirSync(dir, { recursive: true });
  made.push(dir);
  return dir;
}

afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

describe('sweeping dead servers\' framebuffer directories', () => {
  it('a dead server\'s directory of this user is removed; a live server\'s stays', () => {
    const dead = fbDir(deadPid(), 'a');
    const live = fbDir(process.pid, 'b');
    sweepDeadFramebuffers();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)('another user\'s directory stays, though the pid it names is gone', () => {
    const theirs = fbDir(deadPid(), 'c');
    chownSync(theirs, 65534, 65534);
    sweepDeadFramebuffers();
    expect(existsSync(theirs)).toBe(true);
  });
});
