/**
 * A host whose display died is told as the display's death: the sentence every pending call
 * reads names Xvfb, its pid and its signal (and the Chromium that went with it), not Chromium as
 * if it had died by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { hostBrowserPid, processes } from './helpers/processes.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;

beforeAll(async () => {
  forge = await startForge();
  pages = await servePages({ '/': '<title>Live</title><p>alive</p>' });
  a = await connectAgent(forge, 'default/display-death/lead');
});

afterAll(async () => {
  await a?.close();
  await forge?.stop();
  await pages?.close();
});

/** This server's Xvfb: the one whose framebuffer directory is named after the server's pid. */
function xvfbPid(): number {
  const p = processes().find((x) => /\/Xvfb /.test(x.cmd) && x.cmd.includes(`/dev/shm/forge-fb-${forge.proc.pid}-`));
  if (!p) throw new Error('no Xvfb for this server');
  return p.pid;
}

describe('kill -9 of the host\'s Xvfb', () => {
  it('a pending call answers with Xvfb\'s pid and signal, and the Chromium that went with it', async () => {
    await a.call('browser_navigate', { url: pages.url });
    const xvfb = xvfbPid();
    const chromium = hostBrowserPid(forge.stateDir);
    const pending = a.call('browser_evaluate', { function: '() => new Promise((r) => setTimeout(r, 20000))' });
    await new Promise((r) => setTimeout(r, 500));
    process.kill(xvfb, 'SIGKILL');
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.text).toBe(`the browser host exited: its display, Xvfb (pid ${xvfb}), ended (signal 9) and Chromium (pid ${chromium}) went with it; the next call brings it back`);

    const next = await a.call('browser_navigate', { url: pages.url });
    expect(next.isError, next.text).toBe(false);
    expect(next.text).toContain('alive');
  });
});
