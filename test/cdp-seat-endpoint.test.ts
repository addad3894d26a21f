/**
 * `/cdp?seat=…` is a browser-level CDP endpoint showing the seat its own tabs only: an agent's own
 * playwright-core `connectOverCDP` works on it, sees none of another seat's tabs, and a page it
 * opens is the seat's tab (in its browser_tabs); Browser.close and other seats' targets are refused.
 */
import { describe, expect } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { openCdp } from './helpers/cdp-socket.js';
import { cdpSeatsTest, listUntil } from './helpers/cdp-seats.js';

let browser: Browser | undefined;

const it = cdpSeatsTest('proj', 'Opened over CDP');

it.afterAll(async () => {
  await browser?.close().catch(() => undefined);
});

describe('the seat\'s CDP endpoint', () => {
  it('lets playwright-core connectOverCDP in, showing the seat\'s own tabs and no other seat\'s', async ({ seats }) => {
    browser = await chromium.connectOverCDP(seats.url(seats.LEAD), { timeout: 30_000 });
    const context = browser.contexts()[0]!;
    const titles = await Promise.all(context.pages().map((p) => p.title()));
    expect(titles).toEqual(['Mine']);
    expect(await context.pages()[0]!.evaluate(() => document.body.textContent)).toBe('mine');
  });

  it('opens a page that is the seat\'s tab, listed in its browser_tabs over MCP', async ({ seats, pages }) => {
    const page = await browser!.contexts()[0]!.newPage();
    await page.goto(`${pages.origin}/opened`);
    expect(await page.title()).toBe('Opened over CDP');
    // forge learns the title from the page's own load events, a moment after the client does.
    const list = await listUntil(seats.lead, (text) => text.includes('Opened over CDP'));
    expect(list).toMatch(/Opened over CDP · .*\/opened · page p-[0-9a-f]{8} · owner default\/proj\/lead/);
    // The other seat sees it only as the lead's tab.
    expect((await seats.other.call('browser_tabs', { action: 'list' })).text).not.toContain('Opened over CDP');
    await page.close();
    expect(await listUntil(seats.lead, (text) => !text.includes('/opened'))).not.toContain('/opened');
  });

  it('refuses Browser.close and another seat\'s target by name, and the shared browser runs on', async ({ seats }) => {
    const s = await openCdp(seats.url(seats.LEAD));
    const close = await s.send('Browser.close');
    expect(close.error?.message).toContain('Browser.close is refused: the browser is shared');
    // The other seat's target, as the other seat's own endpoint shows it.
    const o = await openCdp(seats.url(seats.OTHER));
    const theirs = (await o.send('Target.getTargets')).result!.targetInfos as Array<{ targetId: string; title: string }>;
    expect(theirs.map((t) => t.title)).toEqual(['Theirs']);
    const attach = await s.send('Target.attachToTarget', { targetId: theirs[0]!.targetId, flatten: true });
    expect(attach.error?.message).toContain(`which belongs to ${seats.OTHER}`);
    const shut = await s.send('Target.closeTarget', { targetId: theirs[0]!.targetId });
    expect(shut.error?.message).toContain(`which belongs to ${seats.OTHER}`);
    const mine = (await s.send('Target.getTargets')).result!.targetInfos as Array<{ title: string }>;
    expect(mine.map((t) => t.title)).toEqual(['Mine']);
    expect((await seats.other.call('browser_snapshot')).text).toContain('theirs');
    await s.close();
    await o.close();
  });
});
