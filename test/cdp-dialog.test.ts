/**
 * Dialogs still hold a tab driven over raw CDP: a command that would drive it gets a CDP error
 * naming the dialog and the socket stays open; clients that answer the same dialog at once (two
 * CDP sockets, or a socket and browser_handle_dialog) never bring the server down.
 */
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { cdpUrl, openCdp, pageIdIn, type CdpSocket } from './helpers/cdp-socket.js';

const SEAT = 'default/proj/lead';
let forge: RunningServer;
let a: Agent;
let pageId: string;

const it = forgeTest({}, { '/': '<title>Dialogs</title><p>dialogs</p>' });

it.beforeAll(async ({ forge: f, pages, agentFor }) => {
  forge = f;
  a = await agentFor(SEAT);
  await a.call('browser_navigate', { url: pages.url });
  pageId = pageIdIn((await a.call('browser_tabs', { action: 'list' })).text);
});

const open = (): Promise<CdpSocket> => openCdp(cdpUrl(forge.info.port, `/cdp/${pageId}`, { seat: SEAT }), { authorization: `Bearer ${forge.info.token}` });

/** Opens a dialog from the page and waits until forge holds it (the agent's list says so). */
async function raise(s: CdpSocket, script: string): Promise<void> {
  await s.send('Runtime.evaluate', { expression: `setTimeout(() => { ${script} }, 0); 0` });
  for (let i = 0; i < 100; i++) {
    if ((await a.call('browser_tabs', { action: 'list' })).text.includes('waiting')) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the dialog never held the tab');
}

describe('a held dialog over raw CDP', () => {
  it('answers a command that would drive the tab with an error naming the dialog, and the socket stays open', async () => {
    const s = await open();
    await raise(s, 'alert("look at me")');
    const refused = await s.send('Runtime.evaluate', { expression: '1 + 1', returnByValue: true });
    expect(refused.error?.message).toContain('held by an alert dialog: "look at me"');
    expect(refused.error?.message).toContain('Page.handleJavaScriptDialog');
    const answered = await s.send('Page.handleJavaScriptDialog', { accept: true });
    expect(answered.error).toBeUndefined();
    expect((await s.send('Runtime.evaluate', { expression: '1 + 1', returnByValue: true })).result?.result.value).toBe(2);
    // forge's hold ended with it: the agent's own calls run again.
    expect((await a.call('browser_evaluate', { function: '() => 3' })).isError).toBe(false);
    await s.close();
  });

  it('a confirm answered over CDP reaches the page', async () => {
    const s = await open();
    await raise(s, 'document.title = confirm("Delete it?") ? "yes" : "no"');
    await s.send('Page.handleJavaScriptDialog', { accept: false });
    expect((await s.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true })).result?.result.value).toBe('no');
    await s.close();
  });

  it('two CDP sockets answering one dialog at once: one answers it, the other hears there is none, and the server goes on', async () => {
    const first = await open();
    const second = await open();
    await raise(first, 'alert("both of you")');
    const [x, y] = await Promise.all([first.send('Page.handleJavaScriptDialog', { accept: true }), second.send('Page.handleJavaScriptDialog', { accept: true })]);
    expect([x, y].filter((r) => r.error === undefined)).toHaveLength(1);
    expect(forge.proc.exitCode).toBeNull();
    expect((await a.call('browser_handle_dialog', { accept: true })).text).toContain('no dialog is waiting');
    expect((await second.send('Runtime.evaluate', { expression: '5', returnByValue: true })).result?.result.value).toBe(5);
    await first.close();
    await second.close();
  });

  it('a CDP socket and browser_handle_dialog answering one dialog at once never bring the server down', async () => {
    const s = await open();
    await raise(s, 'alert("race")');
    const [cdp, mcp] = await Promise.all([s.send('Page.handleJavaScriptDialog', { accept: true }), a.call('browser_handle_dialog', { accept: true })]);
    expect(cdp.error === undefined || !mcp.isError).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(forge.proc.exitCode).toBeNull();
    expect((await a.call('browser_evaluate', { function: '() => 7' })).text).toContain('7');
    expect((await s.send('Runtime.evaluate', { expression: '8', returnByValue: true })).result?.result.value).toBe(8);
    await s.close();
  });
});
