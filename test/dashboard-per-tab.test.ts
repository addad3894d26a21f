/**
 * The operators' dashboard plots each watched tab on its own, from the same counters as /metrics:
 * while a person watches a tab that animates, its per-tab charts take live points — its frames a
 * second, encode ms and KB per frame, and its viewer — named by the tab's number and seat.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { forgeTest } from './fixtures.js';

const SEAT = 'default/dash/lead';
const ANIM = '<title>Anim</title><canvas id="c" width="600" height="400"></canvas><script>let t = 0; const g = document.getElementById("c").getContext("2d"); (function f() { g.fillStyle = "hsl(" + (t++ % 360) + ",80%,50%)"; g.fillRect(0, 0, 600, 400); requestAnimationFrame(f); })();</script>';

const it = forgeTest({}, { '/anim': ANIM });

const points = (page: Page, chart: string): Promise<number> => page.locator(`[data-chart="${chart}"]`).evaluate((el) => Number((el as HTMLElement).dataset.points));
const last = async (page: Page, chart: string): Promise<Record<string, number>> => JSON.parse((await page.locator(`[data-chart="${chart}"]`).getAttribute('data-last')) ?? '{}') as Record<string, number>;

describe('the dashboard per watched tab', () => {
  it('a watched tab that animates gets live points of its fps, encode cost per frame and viewers', async ({ forge, pages, agentFor, viewer, clientBrowser }) => {
    const agent = await agentFor(SEAT);
    await agent.call('browser_navigate', { url: `${pages.url}anim` });
    viewer.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await viewer.waitFrames(3);
    // /metrics carries the tab's own series, named by its number, page and seat (its gauges are pushed once a second).
    const metrics = async (): Promise<string> => (await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } })).text();
    await expect.poll(metrics, { timeout: 10_000 }).toMatch(new RegExp(`forge_tab_encode_frames_total\\{profile="default/default",frame="\\d+",tab="1",page="p-[0-9a-f]{8}",seat="${SEAT}"\\} [1-9]`));
    expect(await metrics()).toMatch(/forge_tab_viewers\{frame="\d+"\} 1/);

    const context = await clientBrowser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${new URL(forge.info.viewer_url).origin}/dashboard?token=${forge.info.token}`);
    await page.locator('.dash-status[data-state="live"]').waitFor({ timeout: 15_000 });
    const first = await points(page, 'tab-fps');
    await expect.poll(() => points(page, 'tab-fps'), { timeout: 15_000 }).toBeGreaterThanOrEqual(first + 3);
    const tab = `tab 1 ${SEAT}`;
    await expect.poll(async () => (await last(page, 'tab-fps'))[`${tab} fps`] ?? 0, { timeout: 15_000 }).toBeGreaterThan(1);
    expect((await last(page, 'tab-fps'))[`${tab} skipped (slow viewers)`]).toBeGreaterThanOrEqual(0);
    await expect.poll(async () => (await last(page, 'tab-frame'))[`${tab} KB`] ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await last(page, 'tab-frame'))[`${tab} ms`]).toBeGreaterThan(0);
    expect((await last(page, 'viewers'))[tab]).toBe(1);
    await context.close();
  });
});
