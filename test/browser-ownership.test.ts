import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;
let b: Agent;

const it = forgeTest({}, {
  '/': '<title>Home</title><h1>Home</h1><button onclick="document.title=\'clicked\'">Press</button>',
  '/two': '<title>Two</title><p>second page</p>',
});

it.beforeAll(async ({ forge: server, pages: served, agentFor }) => {
  forge = server;
  pages = served;
  a = await agentFor('default/shop/lead');
  b = await agentFor('default/shop/worker');
});

describe('two seats in one profile', () => {
  it('each seat drives its own tab, never the other seat\'s', async () => {
    const ra = await a.call('browser_navigate', { url: pages.url });
    expect(ra.isError).toBe(false);
    expect(ra.text).toContain('Home');
    const rb = await b.call('browser_navigate', { url: `${pages.origin}/two` });
    expect(rb.text).toContain('Two');
    // A's page is still A's: B's navigation landed elsewhere.
    const again = await a.call('browser_snapshot');
    expect(again.text).toContain('heading "Home"');
    expect(again.text).not.toContain('second page');
  });

  it('browser_tabs shows a seat its own tabs and names other owners only as owners', async () => {
    const list = await b.call('browser_tabs', { action: 'list' });
    expect(list.text).toMatch(/\(current\) Two/);
    expect(list.text).toContain('owner default/shop/lead');
    expect(list.text).not.toContain('Home');
  });

  it('a call naming another seat\'s tab is refused by name', async () => {
    const list = await a.call('browser_tabs', { action: 'list' });
    const mine = /- (\d+): \(current\)/.exec(list.text)![1];
    const r = await b.call('browser_tabs', { action: 'select', index: Number(mine) });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`tab ${mine}`);
    expect(r.text).toContain('belongs to default/shop/lead');
  });

  it('a click through a snapshot ref presses the real button', async () => {
    const snap = await a.call('browser_snapshot');
    const ref = /button "Press" \[ref=((?:f\d+)?e\d+)\]/.exec(snap.text)![1];
    const r = await a.call('browser_click', { element: 'Press', ref });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('· clicked ·');
  });

  it('an unknown tool argument is refused naming it, and the tool still works after', async () => {
    const r = await a.call('browser_navigate', { url: pages.url, colour: 'red' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/colour/);
    const ok = await a.call('browser_snapshot');
    expect(ok.isError).toBe(false);
  });
});

describe('every page call is on record', () => {
  it('logs seat, tool, profile, host pid, port, cache root, duration and outcome', async () => {
    await a.call('browser_snapshot');
    const lines = forge.output().split('\n').filter((l) => l.includes('"msg":"page call"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const last = lines.filter((l) => l.tool === 'browser_snapshot').pop()!;
    expect(last).toMatchObject({ seat: 'default/shop/lead', tool: 'browser_snapshot', profile: 'default/default', outcome: 'ok' });
    expect(last.hostPid).toBeGreaterThan(0);
    expect(last.port).toBeGreaterThan(0);
    expect(String(last.cacheRoot)).toBe(`${forge.stateDir}/profiles/default/default`);
    expect(typeof last.ms).toBe('number');
  });
});
