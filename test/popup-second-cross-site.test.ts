/**
 * A second popup at another site from the same page does not commit while the first is live: its
 * window.open answers null, no tab opens at its address, and the seat is told why. A same-site
 * popup still opens meanwhile, a named open reaching the live popup navigates it, and once the
 * first popup closes the second open works.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { seatTabs, type SeatTabs } from './helpers/seat-tabs.js';
import { forgeTest, type TestPages } from './fixtures.js';

const SEAT = 'default/second/lead';
let pages: TestPages;
let idp: PageServer;
let agent: Agent;
let list: SeatTabs['list'];
let toApp: SeatTabs['toApp'];
let at: SeatTabs['at'];

const it = forgeTest();

/** A button that opens `url` in the window named `name` and shows what window.open answered. */
const opens = (label: string, url: string, name: string): string =>
  `<button onclick='document.getElementById("out").textContent = "${label}: " + (window.open(${JSON.stringify(url)}, ${JSON.stringify(name)}) === null ? "null" : "a window")'>${label}</button>`;

it.beforeAll(async ({ pages: p, agentFor }) => {
  pages = p;
  idp = await servePages({ '/a': '<title>Provider A</title>a', '/b': '<title>Provider B</title>b', '/a2': '<title>Provider A again</title>a2' }, 'localhost');
  pages.route('/same', '<title>Same site</title>same');
  pages.route('/', () => `<title>App</title>${opens('Open A', `${idp.origin}/a`, 'one')}${opens('Open B', `${idp.origin}/b`, 'two')}${opens('Again A', `${idp.origin}/a2`, 'one')}${opens('Same site', `${pages.origin}/same`, 'three')}<p id="out">idle</p>`);
  agent = await agentFor(SEAT);
  ({ list, toApp, at } = seatTabs(agent));
  await agent.call('browser_navigate', { url: pages.url });
});

it.afterAll(async () => {
  await idp?.close();
});



/** Clicks a button on the app's tab; answers what window.open answered and everything the seat was told. */
async function press(label: string): Promise<{ out: string; said: string }> {
  await toApp();
  const clicked = await agent.call('browser_click', { ref: `role=button[name="${label}"]` });
  expect(clicked.isError).toBe(false);
  await toApp();
  const snap = await agent.call('browser_snapshot');
  const out = new RegExp(`${label}: (null|a window)`).exec(snap.text)?.[1] ?? `(not shown)\n${snap.text}`;
  return { out, said: clicked.text + snap.text };
}


/** Polls until `path` has `n` tabs or 10 s pass. */
async function untilAt(path: string, n: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let c = await at(path);
  while (c !== n && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    c = await at(path);
  }
  return c;
}

describe('one cross-site popup at a time from a page', () => {
  it('the first cross-site popup opens as the seat\'s popup tab', async () => {
    const r = await press('Open A');
    expect(r.out).toBe('a window');
    expect(r.said).toMatch(/opened a popup: tab \d+/);
    expect(await untilAt('/a', 1)).toBe(1);
  });

  it('a second one answers null while the first is live: no tab at its address, and the seat reads why', async () => {
    const r = await press('Open B');
    expect(r.out).toBe('null');
    expect(r.said).toMatch(new RegExp(`asked for a second popup at another site \\(window\\.open\\("${idp.origin}/b"\\)\\) while tab \\d+ \\(p-[0-9a-f]{8}\\) is open: refused, it answered null and nothing opened; close that popup first`));
    // Given time to commit, it never does.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await at('/b')).toBe(0);
  });

  it('meanwhile a same-site popup opens, and a named open that reaches the live popup navigates it', async () => {
    expect((await press('Same site')).out).toBe('a window');
    expect(await untilAt('/same', 1)).toBe(1);
    expect((await press('Again A')).out).toBe('a window');
    expect(await untilAt('/a2', 1)).toBe(1);
    expect(await at('/a')).toBe(0);
  });

  it('once the first popup closes, the second cross-site open works', async () => {
    const popup = /- (\d+): [^\n]*\/a2 · page p-/.exec(await list())![1];
    await agent.call('browser_tabs', { action: 'close', index: Number(popup) });
    expect(await untilAt('/a2', 0)).toBe(0);
    const r = await press('Open B');
    expect(r.out).toBe('a window');
    expect(await untilAt('/b', 1)).toBe(1);
  });
});
