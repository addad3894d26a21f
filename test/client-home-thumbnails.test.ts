/**
 * A seat's card shows each tab's live thumbnail: in real headless Chromium against a real
 * server, the picture of a page that animates keeps changing, a still page's is sent once, and
 * nothing more arrives while the home is hidden (document.visibilityState),
 * until it is shown again.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { openClient } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';
import { THUMB_WIDTH_PX } from '../src/main/browser/thumb-shot.js';

const MOVING = 'default/thumbs/lead';
const STILL = 'default/thumbs/helper';
const TICKER = `<title>Ticker</title><body style="margin:0;font:40px sans-serif"><p id=n>0</p>
<div id=b style="width:200px;height:200px;background:#08f"></div>
<script>let n = 0; setInterval(() => { n++; document.getElementById('n').textContent = n; document.getElementById('b').style.marginLeft = (n * 37 % 800) + 'px'; }, 100)</script>`;

const it = forgeTest({}, { '/ticker': TICKER, '/still': '<title>Still</title><h1>nothing moves here</h1>' });

/** How many changed pictures the home has drawn for the seat's tab. */
const framesOf = async (page: Page, seat: string): Promise<number> =>
  Number(await page.locator(`.seat-card[data-seat="${seat}"] img.tab-thumb`).getAttribute('data-frames'));

async function setVisibility(page: Page, state: 'hidden' | 'visible'): Promise<void> {
  await page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
}

describe('live thumbnails on the home', () => {
  it('a page that animates keeps changing its thumbnail, and a hidden home gets none until shown again', async ({ forge, pages, clientBrowser, agentFor }) => {
    const moving = await agentFor(MOVING);
    const still = await agentFor(STILL);
    await moving.call('browser_navigate', { url: `${pages.url}ticker` });
    await still.call('browser_navigate', { url: `${pages.url}still` });
    const client = await openClient(clientBrowser, forge.info.viewer_url);
    const { page } = client;
    const img = page.locator(`.seat-card[data-seat="${MOVING}"] img.tab-thumb`);
    await img.waitFor({ timeout: 15_000 });
    await expect.poll(() => framesOf(page, MOVING), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    // A real WebP of the tab, decoded by the person's browser at the budgeted width.
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete ? el.naturalWidth : 0), { timeout: 5_000 }).toBe(THUMB_WIDTH_PX);
    const first = await framesOf(page, MOVING);
    await expect.poll(() => framesOf(page, MOVING), { timeout: 10_000 }).toBeGreaterThanOrEqual(first + 3);

    // A still page's picture is sent once: only a change is pushed.
    await expect.poll(() => framesOf(page, STILL), { timeout: 15_000 }).toBe(1);
    await page.waitForTimeout(1_500);
    expect(await framesOf(page, STILL)).toBe(1);
    await client.shot('home-thumbnails');

    // The home hidden, and its thumbnails stop. Headless Chromium never hides a page (measured:
    // another tab in front or a minimised window both leave it 'visible'), so the page is told
    // as a browser tells it: visibilityState reads 'hidden' and visibilitychange fires.
    await setVisibility(page, 'hidden');
    await page.waitForTimeout(700); // a shot already under way may still land
    const hidden = await framesOf(page, MOVING);
    await page.waitForTimeout(2_000);
    expect(await framesOf(page, MOVING)).toBe(hidden);

    // Shown again, the pictures come back.
    await setVisibility(page, 'visible');
    await expect.poll(() => framesOf(page, MOVING), { timeout: 10_000 }).toBeGreaterThanOrEqual(hidden + 2);
    await client.close();
  });
});
