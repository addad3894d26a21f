/**
 * A subframe's window.open answers null for every web address but the top frame's own origin,
 * and a cross-origin subframe's answers null for every address: no tab opens, and the seat is
 * told which rule refused it. A same-origin subframe opening the page's own origin gets a window.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { forgeTest, type TestPages } from './fixtures.js';

const SEAT = 'default/frames/lead';
let pages: TestPages;
let other: PageServer;
let cross: PageServer;
let agent: Agent;

const it = forgeTest();

/** A frame's buttons: each opens one address and shows what window.open answered. */
function framePage(name: string, targets: Record<string, string>): string {
  const buttons = Object.entries(targets).map(([label, url]) =>
    `<button onclick='document.getElementById("out").textContent = "${name} ${label}: " + (window.open(${JSON.stringify(url)}) === null ? "null" : "a window")'>${label}</button>`);
  return `<title>${name}</title>${buttons.join('')}<p id="out">${name} idle</p>`;
}

it.beforeAll(async ({ pages: p, agentFor }) => {
  pages = p;
  other = await servePages({ '/p': '<title>Elsewhere</title>elsewhere' }, 'localhost');
  const targets = (): Record<string, string> => ({ 'top origin': `${pages.origin}/p`, 'other origin': `${other.origin}/p`, blank: '' });
  pages.route('/p', '<title>Same</title>same');
  pages.route('/same', () => framePage('same-frame', targets()));
  cross = await servePages({ '/cross': () => framePage('cross-frame', { ...targets(), 'its own origin': '/cross' }) }, 'localhost');
  pages.route('/', () => `<title>Top</title><iframe src="/same" width=600 height=120></iframe><iframe src="${cross.origin}/cross" width=600 height=120></iframe>`);
  agent = await agentFor(SEAT);
  await agent.call('browser_navigate', { url: pages.url });
});

it.afterAll(async () => {
  await other?.close();
  await cross?.close();
});

/** Back on the page with the frames (a popup that opened became the seat's current tab). */
async function toTop(): Promise<void> {
  const n = /- (\d+): (?:\(current\) )?Top · /.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1];
  await agent.call('browser_tabs', { action: 'select', index: Number(n) });
}

/** The ref of button `label` in the frame whose output reads `frame idle|…`. */
async function buttonIn(frame: string, label: string): Promise<string> {
  await toTop();
  const snap = (await agent.call('browser_snapshot')).text;
  const lines = snap.split('\n');
  const at = lines.findIndex((l) => l.includes(`${frame} `) && l.includes('paragraph'));
  const ref = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.includes(`button "${label}" [ref=`)).sort((x, y) => Math.abs(x.i - at) - Math.abs(y.i - at))[0];
  if (!ref) throw new Error(`no button "${label}" near ${frame} in:\n${snap}`);
  return /\[ref=((?:f\d+)?e\d+)\]/.exec(ref.l)![1]!;
}

async function tabCount(): Promise<number> {
  return ((await agent.call('browser_tabs', { action: 'list' })).text.match(/ · page p-[0-9a-f]{8} /g) ?? []).length;
}

/** Clicks the button, answers the frame's output and the click's notes. */
async function press(frame: string, label: string): Promise<{ out: string; said: string }> {
  const clicked = await agent.call('browser_click', { ref: await buttonIn(frame, label) });
  expect(clicked.isError).toBe(false);
  await toTop();
  const snap = (await agent.call('browser_snapshot')).text;
  const out = new RegExp(`${frame} ${label}: (null|a window)`).exec(snap)?.[1] ?? `(not shown)\n${snap}`;
  return { out, said: clicked.text + snap };
}

describe('a subframe opens windows only at the top frame\'s own origin', () => {
  it('a same-origin subframe\'s open of the page\'s own origin gets a window, a popup tab of the seat', async () => {
    const before = await tabCount();
    const r = await press('same-frame', 'top origin');
    expect(r.out).toBe('a window');
    expect(r.said).toMatch(/opened a popup: tab \d+/);
    expect(await tabCount()).toBe(before + 1);
    const list = (await agent.call('browser_tabs', { action: 'list' })).text;
    const popup = Number(/- (\d+): [^\n]*\/p · page p-/.exec(list)![1]);
    await agent.call('browser_tabs', { action: 'close', index: popup });
    expect(await tabCount()).toBe(before);
  });

  it('a same-origin subframe\'s open of another origin answers null, opens no tab, and the seat is told why', async () => {
    const before = await tabCount();
    const r = await press('same-frame', 'other origin');
    expect(r.out).toBe('null');
    expect(r.said).toContain(`called window.open("${other.origin}/p"): refused, it answered null; a frame opens windows only at its page's own origin (${pages.origin})`);
    expect(await tabCount()).toBe(before);
  });

  for (const label of ['top origin', 'other origin', 'its own origin', 'blank']) {
    it(`a cross-origin subframe's open (${label}) answers null and opens no tab`, async () => {
      const before = await tabCount();
      const r = await press('cross-frame', label);
      expect(r.out).toBe('null');
      expect(r.said).toMatch(/a frame from another origin \(http:\/\/localhost:\d+\/cross\) in tab \d+ \(p-[0-9a-f]{8}\) called window\.open\(.*\): refused, it answered null; such a frame opens no window/);
      expect(await tabCount()).toBe(before);
    });
  }

  it('the top frame itself still opens another origin', async () => {
    const before = await tabCount();
    const r = await agent.call('browser_evaluate', { function: `() => window.open(${JSON.stringify(`${other.origin}/p`)}) === null ? 'null' : 'a window'` });
    expect(r.text).toContain('"a window"');
    expect(r.text).toMatch(/opened a popup: tab \d+/);
    expect(await tabCount()).toBe(before + 1);
  });
});
