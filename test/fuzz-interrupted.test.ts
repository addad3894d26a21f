/**
 * A fuzz run stopped from its terminal (Ctrl-C, or a kill of the driver alone) stops the server it
 * started, and with it that server's browser host and Xvfb: nothing the run started outlives it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

const alive = (pid: number): boolean => existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

describe('an interrupted fuzz run', () => {
  it('leaves no server, browser or display of its own running', async () => {
    const driver = spawn(process.execPath, ['dist/bench/fuzz.js', '--target', 'viewer', '--inputs', '1000000', '--seed', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    driver.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    // The scene is up (its tab is open, so its browser host runs) once the driver names it.
    await expect.poll(() => /server pid (\d+) on port/.exec(err)?.[1], { timeout: 60_000, interval: 100 }).toBeDefined();
    const server = Number(/server pid (\d+) on port/.exec(err)![1]);
    const started = childrenOf(server);
    expect(started.length, 'the server started its browser host and display').toBeGreaterThan(0);
    const exited = new Promise<number | null>((r) => driver.once('exit', (code) => r(code)));
    driver.kill('SIGINT');
    expect(await exited, 'the driver ends as an interrupted command does').toBe(130);
    expect(err).toContain('stopping the server under test');
    expect(alive(server), 'the server stopped with the driver').toBe(false);
    await expect.poll(() => started.filter(alive), { timeout: 10_000 }).toEqual([]);
  });
});
