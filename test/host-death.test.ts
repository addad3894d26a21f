import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { hostBrowserPid } from './helpers/processes.js';
import { crashRenderer } from './helpers/crash.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;

beforeAll(async () => {
  forge = await startForge();
  pages = await servePages({ '/': '<title>Live</title><p>alive</p>' });
  a = await connectAgent(forge, 'default/crash/lead');
});

afterAll(async () => {
  await a?.close();
  await forge?.stop();
  await pages?.close();
});

function browserPid(): number { return hostBrowserPid(forge.stateDir); }

describe('the host dies under a call', () => {
  it('every pending call answers with the host\'s death sentence after kill -9, and the next call works on a fresh host', async () => {
    await a.call('browser_navigate', { url: pages.url });
    const pid = browserPid();
    const pending = a.call('browser_evaluate', { function: '() => new Promise((r) => setTimeout(r, 20000))' });
    await new Promise((r) => setTimeout(r, 500));
    process.kill(pid, 'SIGKILL');
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.text).toBe(`the browser host exited (signal 9; pid ${pid}); the next call brings it back`);

    const next = await a.call('browser_navigate', { url: pages.url });
    expect(next.isError).toBe(false);
    expect(next.text).toContain('alive');
    expect(browserPid()).not.toBe(pid);
  });

  it('a seat whose tabs died while it was not calling is told on its next call, which still works', async () => {
    const pid = browserPid();
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    const next = await a.call('browser_navigate', { url: pages.url });
    expect(next.isError).toBe(false);
    expect(next.text).toMatch(/^Note: the browser restarted at \d\d:\d\d \(exited on signal 9\): your tabs are gone; cookies and logins are kept\.\n/);
    expect(next.text).toContain('alive');
  });

  it('a page whose renderer crashed is rebuilt and answered in forge\'s words, never a driver TypeError', async () => {
    await a.call('browser_navigate', { url: pages.url });
    await crashRenderer(forge.stateDir, pages.url);
    const r = await a.call('browser_snapshot');
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/the page in tab \d+ \(p-[0-9a-f]{8}\) had crashed; forge reloaded it/);
    expect(r.text).toContain('alive');
  });
});
