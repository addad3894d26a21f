/**
 * The takeover on a finger's screen: at 393 and 430 CSS px every bar control stays on screen
 * with a 44 px target and the actions take a line of their own; a wide page is fitted with bars
 * and taking control lays it out at the phone's shape; a tap presses and a swipe scrolls; a surface
 * wider than the capture or shorter than the smallest layout keeps its shape and its aim.
 */
import { describe, expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer, Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { LAYOUT_MIN_HEIGHT } from '../src/main/browser/viewing/layout.js';
import { CAPTURE_MAX_WIDTH } from '../src/shared/capture.js';
import { DESKTOP, PHONE_393, PHONE_430, TABLET, picturePoint, pictureFitsBox, showFirstTab as showTab, takeControl, type ClientPage, type ClientSize } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let agent: Agent;
let browser: Browser;
let desk: ClientPage;
const opened: ClientPage[] = [];

const LONG = `<title>Long</title><style>body{margin:0;background:#fff;font-size:28px}
#go{display:block;width:100vw;height:40vh;font-size:32px}</style>
<button id="go" onclick="if (event.isTrusted) document.title = 'tapped ' + (++window.n)">Go</button>
${Array.from({ length: 120 }, (_, i) => `<p>line ${i}</p>`).join('')}<script>window.n = 0</script>`;

const evaluate = async (fn: string): Promise<string> => (await agent.call('browser_evaluate', { function: fn })).text;

const it = forgeTest({}, { '/': LONG });

it.beforeAll(async ({ forge: server, pages: served, agentFor, clientBrowser }) => {
  forge = server;
  pages = served;
  browser = clientBrowser;
  agent = await agentFor('default/phone/lead');
  await agent.call('browser_navigate', { url: pages.url });
  // A desktop drives the tab: the phones start as watchers of its landscape layout.
  desk = await showFirstTab(DESKTOP);
  await takeControl(desk);
});

it.afterAll(async () => {
  for (const c of opened) await c.close().catch(() => undefined);
});

async function showFirstTab(size: ClientSize): Promise<ClientPage> {
  const c = await showTab(browser, forge.info.viewer_url, size);
  opened.push(c);
  return c;
}

/** Every visible control of the bar: its box, and whether it is inside the window at ≥ 44 px. */
async function barTargets(page: Page): Promise<Array<{ name: string; x: number; y: number; w: number; h: number }>> {
  return page.evaluate(() => [...document.querySelectorAll<HTMLElement>('.bar button')]
    .filter((b) => b.offsetParent !== null)
    .map((b) => { const r = b.getBoundingClientRect(); return { name: b.getAttribute('aria-label') ?? b.textContent ?? '', x: r.left, y: r.top, w: r.width, h: r.height }; }));
}

describe.each([['393', PHONE_393], ['430', PHONE_430]])('at %s px wide', (label, size) => {
  it('every bar control is on screen with a 44 px target, and the actions wrap onto their own line', async () => {
    const c = await showFirstTab(size);
    const targets = await barTargets(c.page);
    expect(targets.map((t) => t.name)).toEqual(expect.arrayContaining(['back', 'forward', 'take control']));
    for (const t of targets) {
      expect(t.w, t.name).toBeGreaterThanOrEqual(44);
      expect(t.h, t.name).toBeGreaterThanOrEqual(44);
      expect(t.x, t.name).toBeGreaterThanOrEqual(0);
      expect(t.y, t.name).toBeGreaterThanOrEqual(0);
      expect(t.x + t.w, t.name).toBeLessThanOrEqual(size.width + 0.5);
    }
    const back = (await c.page.locator('.bar-back').boundingBox())!;
    const control = (await c.page.locator('.bar-control').boundingBox())!;
    expect(control.y).toBeGreaterThanOrEqual(back.y + back.height);
    await c.shot(`phone-${label}-watching`);
    await c.close();
  });
});

describe('a phone beside a desktop', () => {
  let phone: ClientPage;

  it('a page laid out for the desktop is fitted into the phone with bars, never stretched', async () => {
    phone = await showFirstTab(PHONE_393);
    const canvas = phone.page.locator('.surface-canvas');
    await expect.poll(async () => Number(await canvas.getAttribute('data-frames-drawn') ?? 0), { timeout: 20_000 }).toBeGreaterThan(0);
    const frame = (await canvas.getAttribute('data-frame'))!.split('x').map(Number);
    expect(frame[0]).toBeGreaterThan(frame[1]!); // the desktop's landscape layout
    const box = (await canvas.boundingBox())!;
    const top = await picturePoint(phone.page, 0, 0);
    // Bars above and below: the picture starts well below the canvas's top edge, and keeps its shape.
    expect(top.y - box.y).toBeGreaterThan(50);
    const bottom = await picturePoint(phone.page, 1, 1);
    expect((bottom.x - top.x) / (bottom.y - top.y)).toBeCloseTo(frame[0]! / frame[1]!, 1);
    await phone.shot('phone-393-fitted');
  });

  it('taking control on the phone lays the page out at the phone\'s shape, so the bars fall away', async () => {
    await takeControl(phone);
    expect(await pictureFitsBox(phone.page)).toBe(true);
    await expect.poll(() => desk.page.locator('.bar-control').textContent()).toBe('take control');
    await phone.shot('phone-393-controller');
    // Give the role back to the desktop for what follows.
    await takeControl(desk);
  });
});

describe('a finger on the picture', () => {
  it('a tap presses the page\'s button, and a one-finger swipe scrolls the page', async () => {
    const tablet = await showFirstTab(TABLET);
    // Laid out at the tablet's shape once it holds the role.
    await takeControl(tablet);
    await expect.poll(() => desk.page.locator('.bar-control').textContent()).toBe('take control');
    const p = await picturePoint(tablet.page, 0.5, 0.1);
    await tablet.page.touchscreen.tap(p.x, p.y);
    await expect.poll(() => evaluate('() => document.title'), { timeout: 10_000 }).toContain('tapped 1');
    const cdp = await tablet.context.newCDPSession(tablet.page);
    const from = await picturePoint(tablet.page, 0.5, 0.8);
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', y: number) => cdp.send('Input.dispatchTouchEvent', {
      type, touchPoints: type === 'touchEnd' ? [] : [{ x: from.x, y }],
    });
    await touch('touchStart', from.y);
    for (let i = 1; i <= 10; i++) await touch('touchMove', from.y - i * 30);
    await touch('touchEnd', from.y - 300);
    await expect.poll(async () => Number(/### Result\n"?(\d+)/.exec(await evaluate('() => String(Math.round(window.scrollY))'))?.[1] ?? 0), { timeout: 10_000 }).toBeGreaterThan(100);
    // The swipe was a scroll, not a press.
    expect(await evaluate('() => document.title')).toContain('tapped 1');
    await tablet.shot('tablet-controller');
  });
});

/** A 1440p monitor with the browser maximised: wider and taller than the capture carries. */
const WIDE_MONITOR: ClientSize = { width: 2560, height: 1340 };
/** A landscape phone with its keyboard up: the stage is shorter than the smallest layout. */
const SHORT_STAGE: ClientSize = { width: 740, height: 250 };

describe.each([
  ['wider than the capture', WIDE_MONITOR, (box: { width: number }) => box.width > CAPTURE_MAX_WIDTH],
  ['shorter than the smallest layout', SHORT_STAGE, (box: { height: number }) => box.height < LAYOUT_MIN_HEIGHT],
])('a surface %s', (_label, size, premise) => {
  it('taking control keeps the surface\'s shape, with no bars, and a click lands where it was aimed', async () => {
    const c = await showFirstTab(size);
    expect(premise((await c.page.locator('.surface-canvas').boundingBox())!)).toBe(true);
    await takeControl(c);
    expect(await pictureFitsBox(c.page)).toBe(true);
    await evaluate('() => { window.scrollTo(0, 0); window.addEventListener("click", (e) => { window.lastClick = [e.clientX / innerWidth, e.clientY / innerHeight]; }, true); return "ok"; }');
    for (const [fx, fy] of [[0.75, 0.6], [0.2, 0.9]] as const) {
      const p = await picturePoint(c.page, fx, fy);
      await c.page.mouse.click(p.x, p.y);
      // Where the page saw the click, as a fraction of its viewport: within 2% of where it was aimed.
      await expect.poll(async () => {
        const text = /### Result\n(.*)/.exec(await evaluate('() => JSON.stringify(window.lastClick ?? null)'))?.[1] ?? 'null';
        let at: unknown = JSON.parse(text);
        if (typeof at === 'string') at = JSON.parse(at);
        const where = at as number[] | null;
        return where ? Math.max(Math.abs(where[0]! - fx), Math.abs(where[1]! - fy)) : 1;
      }, { timeout: 10_000 }).toBeLessThan(0.02);
    }
    await c.shot(`controller-${size.width}x${size.height}`);
    await takeControl(desk);
  });
});
