/**
 * A raw CDP socket to a tab the memory budget unloaded: the messages sent before the tab is
 * rebuilt wait for it and are answered in order once its page is back at its address; at most 64
 * wait, and the 65th closes the socket 1009 in words.
 */
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import type { Route } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';
import { cdpUrl, openCdp, pageIdIn } from './helpers/cdp-socket.js';

/** How long the test's slow page takes to answer, ms: every rebuild of it lasts at least this, so messages surely arrive before it ends. */
const SLOW_PAGE_MS = 1_500;
const SEAT = 'default/budget/lead';

let forge: RunningServer;
let a: Agent;

/** A page naming its own address; one under /slow answers only after SLOW_PAGE_MS. */
const page = (_body: string, url: URL): Route => ({
  type: 'text/html',
  body: `<title>${url.pathname}</title><p>${url.pathname}</p>`,
  delayMs: url.pathname.startsWith('/slow') ? SLOW_PAGE_MS : 0,
});

const it = toolPagesTest({ toml: '[browser]\nhidden_agent_tabs = 1\nhidden_person_tabs = 1\n' }, { '/slow/one': page, '/slow/two': page, '/fast/three': page });

it.beforeAll(async ({ forge: f, toolPages, agentFor }) => {
  forge = f;
  a = await agentFor(SEAT);
  await a.call('browser_navigate', { url: `${toolPages.origin}/slow/one` });
  await a.call('browser_tabs', { action: 'new', url: `${toolPages.origin}/slow/two` });
  await a.call('browser_tabs', { action: 'new', url: `${toolPages.origin}/fast/three` });
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
