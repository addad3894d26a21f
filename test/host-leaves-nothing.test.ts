/**
 * A host that ends leaves nothing behind in the system's temp dir: Chromium's profile-lock
 * directory (`org.chromium.Chromium.*`) and its scratch files live in the host's own temp dir,
 * which goes with the host however it ended — killed with SIGKILL, ended by the lead, or with the
 * server's stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { hostBrowserPid } from './helpers/processes.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;
/** The server's system temp dir, its own for this test, so what any host leaves there is seen. */
let systemTmp: string;

beforeAll(async () => {
  systemTmp = mkdtempSync(join(tmpdir(), 'forge-systmp-'));
  forge = await startForge({ env: { TMPDIR: systemTmp } });
  pages = await servePages({ '/': '<title>Live</title><p>alive</p>' });
  a = await connectAgent(forge, 'default/leak/lead');
});

afterAll(async () => {
  await a?.close();
  await forge?.stop();
  await pages?.close();
  rmSync(systemTmp, { recursive: true, force: true });
});

const chromiumLeftovers = (): string[] => readdirSync(systemTmp).filter((f) => f.startsWith('org.chromium.') || f.startsWith('.org.chromium.'));
const hostTmp = (): string => join(forge.stateDir, 'profiles', 'default', 'default', 'tmp');

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const alive = (pid: number): boolean => { try { process.kill(pid, 0); return true; } catch { return false; } };

describe('a host that ends leaves nothing behind', () => {
  it('a host killed with SIGKILL leaves no Chromium lock directory in the system temp dir, and its own temp dir goes', async () => {
    expect((await a.call('browser_navigate', { url: pages.url })).text).toContain('alive');
    expect(existsSync(hostTmp())).toBe(true);
    const pid = hostBrowserPid(forge.stateDir);
    process.kill(pid, 'SIGKILL');
    await until('the killed host to be gone', () => !alive(pid));
    await until('the host\'s temp dir to go', () => !existsSync(hostTmp()));
    expect(chromiumLeftovers()).toEqual([]);
  });

  it('a host the lead ends, and one the server stops with, leave nothing either', async () => {
    expect((await a.call('browser_navigate', { url: pages.url })).text).toContain('alive');
    const ended = await a.call('browser_end_host');
    expect(ended.isError).toBe(false);
    await until('the ended host\'s temp dir to go', () => !existsSync(hostTmp()));
    expect(chromiumLeftovers()).toEqual([]);

    expect((await a.call('browser_navigate', { url: pages.url })).text).toContain('alive');
    const pid = hostBrowserPid(forge.stateDir);
    await a.close();
    forge.proc.kill('SIGTERM');
    await new Promise((r) => forge.proc.once('exit', r));
    await until('the host to be gone', () => !alive(pid));
    expect(existsSync(hostTmp())).toBe(false);
    expect(chromiumLeftovers()).toEqual([]);
  });
});
