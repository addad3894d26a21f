/**
 * A link that would open a new tab opens a window of its own: Chromium would open the tab in its
 * opener's window and hide the opener there, which then paints nothing (its screenshots waited
 * out their 15 s and its viewers' surface showed the other page). Whatever way the link asks for
 * a tab (target=_blank, a window name, Ctrl or a middle click), both pages keep painting.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { centre, shoot } from './helpers/screenshot.js';

const full = (c: string): string => `html,body{margin:0;min-height:100%;background:${c}} body{height:2400px}`;
const it = forgeTest({}, {
  '/': `<title>Opener</title><style>${full('rgb(255,0,0)')} a{display:block;margin:4px}</style>
    <a href="/blue" target="_blank">Blank</a><a href="/blue" target="results">Named</a><a href="/blue">Plain</a>`,
  '/blue': `<title>Blue</title><style>${full('rgb(0,0,255)')}</style><p>blue</p>`,
});

let pages: TestPages;
let a: Agent;

it.beforeAll(async ({ pages: p, agentFor }) => {
  pages = p;
  a = await agentFor('default/links/lead');
});

/** The seat's listed tab at `path`, by its number. */
async function tabAt(path: string): Promise<number | undefined> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const list = (await a.call('browser_tabs', { action: 'list' })).text;
    const row = new RegExp(`- (\\d+): [^\\n]* · ${pages.origin}${path} · page p-[0-9a-f]+ · owner default/links/lead`).exec(list);
    if (row || Date.now() > deadline) return row ? Number(row[1]) : undefined;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The tab's picture, as the agent sees it: the viewport's, then the whole page's, each twice; its centre colour. */
async function shownColour(tab: number): Promise<[number, number, number]> {
  expect((await a.call('browser_tabs', { action: 'select', index: tab })).isError).toBe(false);
  const colours = [];
  for (const args of [{}, { fullPage: true }, {}, { fullPage: true }]) {
    const s = await shoot(a, args);
    expect(s.isError, s.text).toBe(false);
    colours.push(await centre(s.bytes));
  }
  expect(new Set(colours.map(String)).size).toBe(1);
  return colours[0]!;
}

describe('a link that opens a tab leaves its opener painting', () => {
  it.for<[string, string, Record<string, unknown>]>([
    ['target=_blank', 'Blank', {}],
    ['a window name', 'Named', {}],
    ['a Ctrl click', 'Plain', { modifiers: ['Control'] }],
    ['a middle click', 'Plain', { button: 'middle' }],
  ])('a tab opened by %s paints, and so does its opener', async ([, link, args]) => {
    await a.call('browser_navigate', { url: pages.url });
    const opener = (await tabAt('/'))!;
    const clicked = await a.call('browser_click', { element: link, target: `role=link[name="${link}"]`, ...args });
    expect(clicked.isError, clicked.text).toBe(false);
    const opened = await tabAt('/blue');
    expect(opened, 'the link opened no tab').toBeDefined();
    expect(await shownColour(opener)).toEqual([255, 0, 0]);
    expect(await shownColour(opened!)).toEqual([0, 0, 255]);
    await a.call('browser_tabs', { action: 'close', index: opened });
    await a.call('browser_tabs', { action: 'select', index: opener });
  });
});
