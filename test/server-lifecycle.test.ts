import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { startForge, connectAgent } from './helpers/server.js';
import { servePages } from './helpers/pages.js';
import { survivors, RUN_TAG_VAR } from './helpers/processes.js';

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (cond()) return true; await new Promise((r) => setTimeout(r, 100)); }
  return cond();
}

/** The X display files an Xvfb holds: its lock file and its listening socket in /tmp/.X11-unix. */
function xFilesOf(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try { const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`)); if (m) inodes.add(m[1]); } catch { /* closed */ }
  }
  const paths = readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/))
    .filter((f) => inodes.has(f[6]) && f[7]?.startsWith('/tmp/.X11-unix/X')).map((f) => f[7]);
  const locks = paths.map((p) => `/tmp/.X${p.slice('/tmp/.X11-unix/X'.length)}-lock`).filter((l) => existsSync(l));
  return [...paths, ...locks];
}

describe('the server leaves nothing behind', () => {
  it('SIGTERM stops the server within 5 s with every Xvfb and Chromium it started gone', async () => {
    const tag = randomUUID();
    const forge = await startForge({ env: { [RUN_TAG_VAR]: tag } });
    const pages = await servePages({ '/': '<p>hi</p>' });
    const a = await connectAgent(forge, 'default/p/lead');
    await a.call('browser_navigate', { url: pages.url });
    expect(survivors(tag).length).toBeGreaterThan(1);
    await a.close();
    const t0 = Date.now();
    forge.proc.kill('SIGTERM');
    await new Promise((r) => forge.proc.once('exit', r));
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await waitFor(() => survivors(tag).length === 0, 1000)).toBe(true);
    await forge.stop();
    await pages.close();
  });

  it('kill -9 of the server takes its hosts with it, and no X lock file stays', async () => {
    const tag = randomUUID();
    const forge = await startForge({ env: { [RUN_TAG_VAR]: tag } });
    const pages = await servePages({ '/': '<p>hi</p>' });
    const a = await connectAgent(forge, 'default/p/lead');
    await a.call('browser_navigate', { url: pages.url });
    const xvfbPids = survivors(tag).filter((p) => p.cmd.includes('Xvfb')).map((p) => p.pid);
    expect(xvfbPids.length).toBe(1);
    const xFiles = xFilesOf(xvfbPids[0]);
    expect(xFiles.length).toBeGreaterThan(0);
    forge.proc.kill('SIGKILL');
    await new Promise((r) => forge.proc.once('exit', r));
    const gone = await waitFor(() => survivors(tag).length === 0, 5000);
    expect(survivors(tag).map((p) => p.cmd.slice(0, 80))).toEqual([]);
    expect(gone).toBe(true);
    expect(xFiles.filter((f) => existsSync(f))).toEqual([]);
    // The next server sweeps the framebuffer directory the dead one made.
    const next = await startForge();
    expect(readdirSync('/dev/shm').filter((n) => n.startsWith(`forge-fb-${forge.proc.pid}-`))).toEqual([]);
    await next.stop();
    await a.close().catch(() => undefined);
    await forge.stop();
    await pages.close();
  });
});
