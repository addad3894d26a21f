/**
 * A host whose display died is told as the display's death: the sentence every pending call
 * reads names Xvfb, its pid and its signal (and the Chromium that went with it), not Chromium as
 * if it had died by itself.
 */
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { hostBrowserPid, processes } from './helpers/processes.js';

let forge: RunningServer;
let pages: TestPages;
let a: Agent;

const it = forgeTest({}, { '/': '<title>Live</title><p>alive</p>' });

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  a = await agentFor('default/display-death/lead');
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
