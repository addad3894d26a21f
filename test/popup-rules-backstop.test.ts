/**
 * The popup rules hold for windows the page's window.open never sees: a form with a named
 * target, a blank window sent to another site afterwards. Such a window's first load is refused
 * before it is sent, its window is closed, its address is never listed as a tab, and the seat is
 * told why. A link with a named target (a cross-origin frame's own link too) opens its window the
 * way window.open does, so the page refuses it before any window opens, and the seat is told so.
 * While a page's first popup at another site is live, none of these opens a second one there; a
 * frame from another origin opens no window at all.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { seatTabs, type SeatTabs } from './helpers/seat-tabs.js';
import { forgeTest, type TestPages } from './fixtures.js';

const SEAT = 'default/backstop/lead';
let pages: TestPages;
let idp: PageServer;
let agent: Agent;
let list: SeatTabs['list'];
let toApp: SeatTabs['toApp'];
let at: SeatTabs['at'];

const it = forgeTest();

it.beforeAll(async ({ pages: p, agentFor }) => {
  pages = p;
  idp = await servePages({
    '/a': '<title>Provider A</title>a', '/b': '<title>Provider B</title>b', '/c': '<title>Provider C</title>c', '/d': '<title>Provider D</title>d',
    '/frame': `<title>Their frame</title><a href="${'/e'}" target="framed">Frame link</a>`,
    '/e': '<title>Provider E</title>e',
  }, 'localhost');
  pages.route('/same', '<title>Same site</title>same');
  pages.route('/', () => `<title>App</title>
<button onclick='window.open(${JSON.stringify(`${idp.origin}/a`)}, "one")'>Open A</button>
<a href="${idp.origin}/b" target="named">Link B</a>
<form action="${idp.origin}/c" target="formwin"><button>Form C</button></form>
<button onclick='const w = window.open("", "blank"); w.location.href = ${JSON.stringify(`${idp.origin}/d`)}'>Blank then D</button>
<a href="${pages.origin}/same" target="samesite">Same site</a>
<iframe src="${idp.origin}/frame" title="their frame"></iframe>`);
  agent = await agentFor(SEAT);
  ({ list, toApp, at } = seatTabs(agent));
  await agent.call('browser_navigate', { url: pages.url });
});

it.afterAll(async () => {
  await idp?.close();
});



/** Every answer the seat got since the last press: a refusal is told in the answer of the call that comes after it. */
let heard = '';
/** The seat's calls, each answer kept in `heard`. */
async function call(tool: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await agent.call(tool, args);
  heard += r.text;
  return r.text;
}

/**
 * Clicks `ref` on the app's tab and goes back to it; answers everything the seat was told by
 * then. A blank window sent elsewhere is refused at its first load, which on a busy machine comes
 * after the click has answered: the refusal is then told in a later call's answer, so the calls
 * going back to the app's tab are heard too.
 */
async function press(ref: string): Promise<string> {
  await toApp();
  heard = '';
  const clicked = await agent.call('browser_click', { ref });
  expect(clicked.isError).toBe(false);
  heard += clicked.text;
  const n = /- (\d+): (?:\(current\) )?App · /.exec(await call('browser_tabs', { action: 'list' }))?.[1];
  await call('browser_tabs', { action: 'select', index: Number(n) });
  await call('browser_tabs', { action: 'list' });
  return heard;
}

/** What the seat was told once it says `pattern`, listing its tabs until it does (10 s at most). */
async function told(pattern: RegExp): Promise<string> {
  await expect.poll(async () => { if (!pattern.test(heard)) await call('browser_tabs', { action: 'list' }); return heard; }, { timeout: 10_000 }).toMatch(pattern);
  return heard;
}


/** Tabs at `path` over 1.5 s after a press: a window that was let through has loaded by then. */
async function settledAt(path: string): Promise<number> {
  await new Promise((r) => setTimeout(r, 1_500));
  return at(path);
}

describe('the popup rules for links, forms and windows sent elsewhere', () => {
  it('while a cross-site popup is live, a named link, a form and a blank window sent elsewhere open no second one', async () => {
    await press('role=button[name="Open A"]');
    expect(await at('/a')).toBe(1);
    const link = await press('role=link[name="Link B"]');
    expect(link).toMatch(/asked for a second popup at another site \(a link to "http:\/\/localhost:\d+\/b"\) while tab \d+ \(p-[0-9a-f]{8}\) is open: refused, nothing opened; close that popup first/);
    expect(await settledAt('/b')).toBe(0);
    const form = await press('role=button[name="Form C"]');
    expect(form).toMatch(/second popup at another site \(at "http:\/\/localhost:\d+\/c\?"\)/);
    expect(await settledAt('/c')).toBe(0);
    await press('role=button[name="Blank then D"]');
    expect(await told(/second popup at another site \(at "http:\/\/localhost:\d+\/d"\)/)).toMatch(/refused, it did not load and its window was closed/);
    expect(await settledAt('/d')).toBe(0);
  });

  it('a same-site popup still opens meanwhile, and once the first closes a link opens the other site', async () => {
    await press('role=link[name="Same site"]');
    expect(await settledAt('/same')).toBe(1);
    const tabs = await list();
    const a = /- (\d+): (?:\(current\) )?Provider A · /.exec(tabs)?.[1];
    expect(a, tabs).toBeTruthy();
    await agent.call('browser_tabs', { action: 'close', index: Number(a) });
    expect(await at('/a')).toBe(0);
    const link = await press('role=link[name="Link B"]');
    expect(link).toMatch(/opened a popup: tab \d+/);
    expect(await settledAt('/b')).toBe(1);
  });

  it('a link in a frame from another origin opens no window, and the seat is told', async () => {
    await toApp();
    const frame = await agent.call('browser_snapshot');
    const ref = /link "Frame link" \[ref=([a-z0-9]+)\]/.exec(frame.text)?.[1];
    expect(ref, frame.text).toBeTruthy();
    const clicked = await agent.call('browser_click', { ref: ref! });
    const said = clicked.text + (await agent.call('browser_tabs', { action: 'list' })).text;
    expect(said).toMatch(/a frame from another origin \(http:\/\/localhost:\d+\/frame\) in tab \d+ \(p-[0-9a-f]{8}\) followed a link to "http:\/\/localhost:\d+\/e" into a new window: refused, nothing opened; such a frame opens no window/);
    expect(await settledAt('/e')).toBe(0);
  });
});
