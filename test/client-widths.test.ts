/**
 * The takeover on a finger's screen: at 393 and 430 CSS px every bar control stays on screen
 * with a 44 px target and the actions take a line of their own; a wide page is fitted with bars
 * and taking control lays it out at the phone's shape; a tap presses and a swipe scrolls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { DESKTOP, PHONE_393, PHONE_430, TABLET, launchClientBrowser, picturePoint, pictureFitsBox, showFirstTab as showTab, takeControl, type ClientPage, type ClientSize } from './helpers/client-page.js';

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

beforeAll(async () => {
  forge = await startForge();
  pages = await servePages({ '/': LONG });
  browser = await launchClientBrowser();
  agent = await connectAgent(forge, 'default/phone/lead');
  await agent.call('browser_navigate', { url: pages.url });
  // A desktop drives the tab: the phones start as watchers of its landscape layout.
  desk = await showFirstTab(DESKTOP);
  await takeControl(desk);
});

afterAll(async () => {
  for (const c of opened) await c.close().catch(() => undefined);
  await browser?.close();
  await agent?.close();
  await forge?.stop();
  await pages?.close();
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
    const touch = (type: string, y: number) => cdp.send('Input.dispatchTouchEvent', {
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
