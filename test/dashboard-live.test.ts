/**
 * The operators' dashboard plots the running server live: opened with the agents' key while a
 * watched tab animates, its charts receive a point a second, the frames chart shows frames
 * encoded and sent, and the memory chart the host's own memory; on a phone the charts fit the
 * width. Opened with a person's token, it says it needs the agents' key and plots nothing.
 */
import { describe, expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Agent, RunningServer } from './helpers/server.js';
import { PHONE_393 } from './helpers/client-page.js';
import type { PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let browser: Browser;
let agent: Agent;
let viewer: TestViewer;

const anim = '<title>Anim</title><canvas id="c" width="600" height="400"></canvas><script>let t = 0; const g = document.getElementById("c").getContext("2d"); (function f() { g.fillStyle = "hsl(" + (t++ % 360) + ",80%,50%)"; g.fillRect(0, 0, 600, 400); requestAnimationFrame(f); })();</script>';

const it = forgeTest({}, { '/': anim });

it.beforeAll(async ({ forge: server, pages: served, agentFor, clientBrowser }) => {
  forge = server;
  pages = served;
  browser = clientBrowser;
  agent = await agentFor('default/dash/lead');
  await agent.call('browser_navigate', { url: pages.url });
  viewer = await openViewer(server.info.port, server.info.viewer_token);
  viewer.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  await viewer.waitFrames(3);
});

it.afterAll(async () => {
  await viewer?.close();
});

const origin = (): string => new URL(forge.info.viewer_url).origin;
const points = (page: Page, chart: string): Promise<number> => page.locator(`[data-chart="${chart}"]`).evaluate((el) => Number((el as HTMLElement).dataset.points));
const last = async (page: Page, chart: string): Promise<Record<string, number>> => JSON.parse((await page.locator(`[data-chart="${chart}"]`).getAttribute('data-last')) ?? '{}') as Record<string, number>;

describe('the operators\' dashboard', () => {
  it('with the agents\' key its charts take a point a second while a watched tab animates', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${origin()}/dashboard?token=${forge.info.token}`);
    await page.locator('.dash-status[data-state="live"]').waitFor({ timeout: 15_000 });
    const first = await points(page, 'frames');
    await expect.poll(() => points(page, 'frames'), { timeout: 15_000 }).toBeGreaterThanOrEqual(first + 3);
    await expect.poll(async () => (await last(page, 'frames'))['default/default encoded'] ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await last(page, 'frames'))['sent to viewers'] ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
    expect((await last(page, 'memory'))['default/default host RSS']).toBeGreaterThan(50);
    expect((await last(page, 'memory'))['server RSS']).toBeGreaterThan(20);
    expect(await page.locator('[data-chart] canvas').count()).toBe(8);
    await context.close();
  });

  it('on a phone the charts fit the screen\'s width', async () => {
    const context = await browser.newContext({ viewport: { width: PHONE_393.width, height: PHONE_393.height }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${origin()}/dashboard?token=${forge.info.token}`);
    await page.locator('.dash-status[data-state="live"]').waitFor({ timeout: 15_000 });
    await expect.poll(() => points(page, 'memory'), { timeout: 10_000 }).toBeGreaterThan(1);
    const widest = await page.locator('[data-chart] canvas').evaluateAll((cs) => Math.max(...cs.map((c) => c.getBoundingClientRect().right)));
    expect(widest).toBeLessThanOrEqual(PHONE_393.width);
    await context.close();
  });

  it('with a person\'s token it says it needs the agents\' key and plots nothing', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin()}/dashboard?token=${forge.info.viewer_token}`);
    const status = page.locator('.dash-status[data-state="refused"]');
    await status.waitFor({ timeout: 10_000 });
    expect(await status.textContent()).toContain('needs the agents\' key');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await points(page, 'frames')).toBe(0);
    await context.close();
  });
});
