/**
 * The memory budget: past [browser] hidden_agent_tabs / hidden_person_tabs the least recently
 * used hidden tab of its group is unloaded, still listed, and rebuilt at its address on its next
 * use, saying so; a person's last shown tab, a shown tab and a held tab are never unloaded.
 */
import { describe, expect } from 'vitest';
import { handOff, type RunningServer, type Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

let forge: RunningServer;
let pages: TestPages;
let a: Agent;
let v: TestViewer;

const page = (n: number): string => `<title>Page ${n}</title><p>page number ${n}</p><input id="f">`;

const routes: Record<string, string> = {};
for (let n = 1; n <= 9; n++) routes[`/p/${n}`] = page(n);
routes['/alert'] = '<title>Alerting</title><script>setTimeout(() => alert("look here"), 50)</script>';

const it = forgeTest({ toml: '[browser]\nhidden_agent_tabs = 2\nhidden_person_tabs = 1\n' }, routes);

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  a = await agentFor('default/budget/lead');
  v = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await v?.close();
});

interface Row { number: number; pageId: string; url: string; owner: string; state: string; loaded: boolean }

/** The agent's own tab lines, by number: whether each is marked unloaded. */
async function listed(): Promise<Map<number, { line: string; unloaded: boolean }>> {
  const text = (await a.call('browser_tabs', { action: 'list' })).text;
  const out = new Map<number, { line: string; unloaded: boolean }>();
  for (const line of text.split('\n')) {
    const m = /^- (\d+):/.exec(line);
    if (m) out.set(Number(m[1]), { line, unloaded: line.includes('· unloaded') });
  }
  return out;
}

/** The strip's rows as the viewer's newest tab list has them. */
async function rows(): Promise<Row[]> {
  const seen = v.messages.length;
  v.send({ t: 'tabs' });
  await v.next('tabs', () => v.messages.length > seen);
  // Pushes may follow the answer; the newest list is the one that counts.
  await new Promise((r) => setTimeout(r, 200));
  return [...v.messages].reverse().find((m) => m.t === 'tabs')!.tabs as Row[];
}

async function openTab(n: number): Promise<number> {
  const r = await a.call('browser_tabs', { action: 'new', url: `${pages.origin}/p/${n}` });
  expect(r.isError).toBe(false);
  return Number(/Opened tab (\d+)/.exec(r.text)![1]);
}

describe('hidden tabs past their group\'s cap are unloaded, least recently used first', () => {
  it('an agent opening tabs never unloads the tab a person showed last; its own oldest ones go, listed still', async () => {
    await a.call('browser_navigate', { url: `${pages.origin}/p/1` });
    const first = (await rows()).find((r) => r.number === 1)!;
    v.send({ t: 'attach', pageId: first.pageId, w: 800, h: 600 });
    await v.next('view');
    v.send({ t: 'detach' });
    await new Promise((r) => setTimeout(r, 300));

    for (let n = 2; n <= 5; n++) await openTab(n);
    const list = await listed();
    expect([...list.keys()]).toEqual([1, 2, 3, 4, 5]);
    expect(list.get(1)!.unloaded).toBe(false);
    expect([...list].filter(([, t]) => t.unloaded).map(([n]) => n)).toEqual([2, 3]);
    expect(list.get(2)!.line).toContain(`${pages.origin}/p/2`);
    expect(list.get(2)!.line).toContain('owner default/budget/lead');

    const strip = await rows();
    expect(strip.map((r) => [r.number, r.loaded])).toEqual([[1, true], [2, false], [3, false], [4, true], [5, true]]);
    expect(strip.find((r) => r.number === 2)!.url).toBe(`${pages.origin}/p/2`);

    // Gauges reach /metrics every 2 s.
    await new Promise((r) => setTimeout(r, 2500));
    const metrics = await (await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } })).text();
    expect(metrics).toContain('forge_browser_tabs_unloaded{profile="default/default"} 2');
  });

  it('an unloaded tab\'s next call rebuilds it at its address, with the same number and page id, and says what was lost', async () => {
    const before = (await rows()).find((r) => r.number === 2)!;
    await a.call('browser_tabs', { action: 'select', index: 2 });
    const r = await a.call('browser_snapshot');
    expect(r.isError).toBe(false);
    expect(r.text).toContain(`tab 2 (${before.pageId}) had been unloaded to save memory and was reloaded at ${pages.origin}/p/2: its in-page state and form input are lost, cookies stay`);
    expect(r.text).toContain('page number 2');
    const after = (await rows()).find((r) => r.number === 2)!;
    expect(after).toMatchObject({ pageId: before.pageId, owner: 'default/budget/lead', loaded: true });
    const again = await a.call('browser_snapshot');
    expect(again.text).not.toContain('unloaded to save memory');
    // Still two hidden agent tabs loaded: the revive pushed the next oldest out.
    expect((await rows()).filter((x) => x.number > 1 && x.loaded)).toHaveLength(2);
  });

  it('a viewer showing an unloaded tab rebuilds it, and it stays loaded while shown', async () => {
    const gone = (await rows()).find((r) => !r.loaded)!;
    v.send({ t: 'attach', pageId: gone.pageId, w: 800, h: 600 });
    const view = await v.next('view', (m) => m.pageId === gone.pageId);
    expect(view.url).toBe(gone.url);
    await v.waitFrames(1);
    const told = await a.call('browser_tabs', { action: 'list' });
    expect(told.text).toContain(`a person showed tab ${gone.number} (${gone.pageId}), which had been unloaded to save memory, so it was reloaded at ${gone.url}: its in-page state and form input are lost, cookies stay`);
    for (let n = 6; n <= 7; n++) await openTab(n);
    expect((await rows()).find((r) => r.pageId === gone.pageId)!.loaded).toBe(true);
    v.send({ t: 'detach' });
    await new Promise((r) => setTimeout(r, 300));
  });

  it('a tab a parked hand-off holds is never unloaded, however many tabs open after it', async () => {
    const held = await openTab(8);
    const heldRow = (await rows()).find((r) => r.number === held)!;
    const parked = handOff(a, heldRow.pageId, 'Please look at this page').catch(() => undefined);
    for (let i = 0; i < 50 && (await rows()).find((r) => r.number === held)!.state !== 'held'; i++) { /* parking */ }
    expect((await rows()).find((r) => r.number === held)!.state).toBe('held');
    for (let n = 0; n < 4; n++) await openTab(9);
    const row = (await rows()).find((r) => r.number === held)!;
    expect(row.loaded).toBe(true);
    expect((await listed()).get(held)!.unloaded).toBe(false);
    void parked;
  });

  it('a tab a dialog waits on is never unloaded', async () => {
    const r = await a.call('browser_tabs', { action: 'new', url: `${pages.origin}/alert` });
    const waiting = Number(/Opened tab (\d+)/.exec(r.text)![1]);
    for (let i = 0; i < 50 && !(await listed()).get(waiting)!.line.includes('alert waiting'); i++) await new Promise((res) => setTimeout(res, 100));
    for (let n = 0; n < 4; n++) await openTab(9);
    const line = (await listed()).get(waiting)!;
    expect(line.line).toContain('alert waiting');
    expect(line.unloaded).toBe(false);
  });
});
