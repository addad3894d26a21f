/**
 * A raw CDP socket to a tab the memory budget unloaded: the messages sent before the tab is
 * rebuilt wait for it and are answered in order once its page is back at its address; at most 64
 * wait, and the 65th closes the socket 1009 in words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { cdpUrl, openCdp, pageIdIn } from './helpers/cdp-socket.js';

/** How long the test's slow page takes to answer, ms: every rebuild of it lasts at least this, so messages surely arrive before it ends. */
const SLOW_PAGE_MS = 1_500;
const SEAT = 'default/budget/lead';

let forge: RunningServer;
let site: Server;
let origin = '';
let a: Agent;

beforeAll(async () => {
  site = createServer((req, res) => {
    const slow = (req.url ?? '').startsWith('/slow');
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.url}</title><p>${req.url}</p>`), slow ? SLOW_PAGE_MS : 0);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  forge = await startForge({ toml: '[browser]\nhidden_agent_tabs = 1\nhidden_person_tabs = 1\n' });
  a = await connectAgent(forge, SEAT);
  await a.call('browser_navigate', { url: `${origin}/slow/one` });
  await a.call('browser_tabs', { action: 'new', url: `${origin}/slow/two` });
  await a.call('browser_tabs', { action: 'new', url: `${origin}/fast/three` });
});

afterAll(async () => {
  await a?.close();
  await forge?.stop();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

/** The agent's tab `n`: its page id, and whether its list line marks it unloaded. */
async function tab(n: number): Promise<{ pageId: string; unloaded: boolean }> {
  const list = (await a.call('browser_tabs', { action: 'list' })).text;
  const line = list.split('\n').find((l) => l.startsWith(`- ${n}:`)) ?? '';
  return { pageId: pageIdIn(list, n), unloaded: line.includes('· unloaded') };
}

async function unloaded(n: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const t = await tab(n);
    if (t.unloaded) return t.pageId;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`tab ${n} was never unloaded`);
}

describe('raw CDP to an unloaded tab waits for its rebuild', () => {
  it('answers the 64 messages sent before the rebuild, in the order they were sent, on the page at its address', async () => {
    const pageId = await unloaded(1);
    const s = await openCdp(cdpUrl(forge.info.port, `/cdp/${pageId}`, { seat: SEAT }), { authorization: `Bearer ${forge.info.token}` });
    const ids: number[] = [];
    for (let i = 0; i < 64; i++) ids.push(s.post('Runtime.evaluate', { expression: '[window.__n = (window.__n || 0) + 1, location.pathname]', returnByValue: true }));
    const answers = await Promise.all(ids.map((id) => s.answer(id)));
    expect(answers.map((x) => x.error?.message ?? x.result?.result.value[0])).toEqual(ids.map((_, i) => i + 1));
    expect(answers[0]!.result?.result.value[1]).toBe('/slow/one');
    expect((await tab(1)).unloaded).toBe(false);
    // The agent hears it on its next call too.
    await a.call('browser_tabs', { action: 'select', index: 1 });
    expect((await a.call('browser_snapshot')).text).toContain('had been unloaded to save memory and was reloaded');
    await s.close();
  });

  it('closes the socket 1009 in words when a 65th message arrives before the rebuild ends', async () => {
    const pageId = await unloaded(2);
    const s = await openCdp(cdpUrl(forge.info.port, `/cdp/${pageId}`, { seat: SEAT }), { authorization: `Bearer ${forge.info.token}` });
    for (let i = 0; i < 65; i++) s.post('Runtime.evaluate', { expression: `${i}` });
    const end = await s.closed;
    expect(end.code).toBe(1009);
    expect(end.reason).toContain('65 messages arrived while tab 2');
    expect(end.reason).toContain('at most 64');
  });
});
