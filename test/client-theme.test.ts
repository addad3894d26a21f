/**
 * The client's colours follow the person's light or dark preference, live: a page opened with a
 * light preference is light (its ground and its terminal's ground), and when the preference
 * changes the open page and a raised terminal change with it, without a reload. In real headless
 * Chromium against a real server.
 */
import { describe, expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from './helpers/server.js';
import { rgb } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';
import { PALETTES } from '../clients/web/theme.js';

const SEAT = 'default/theme/lead';
let forge: RunningServer;
let browser: Browser;

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' });

it.beforeAll(async ({ forge: f, clientBrowser, agentFor }) => {
  forge = f;
  browser = clientBrowser;
  await (await agentFor(SEAT)).call('terminal__run', { command: 'echo themed' });
});

const ground = (page: Page): Promise<string> => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const terminalGround = (page: Page): Promise<string> => page.evaluate(() => getComputedStyle(document.querySelector('.term-screen .xterm-scrollable-element')!).backgroundColor);

describe('the client\'s colours', () => {
  it('a page opened with a light preference is light, its terminal too, and turns dark live when the preference does', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(forge.info.viewer_url);
    await page.locator('.link-state[data-state="open"]').waitFor();
    expect(await ground(page)).toBe(rgb(PALETTES.light.bg!));
    await page.locator(`.seat-card[data-seat="${SEAT}"]`).getByRole('button', { name: `show the terminal of ${SEAT}` }).click();
    await page.locator('.term-screen .xterm-scrollable-element').waitFor({ timeout: 15_000 });
    await expect.poll(() => terminalGround(page), { timeout: 10_000 }).toBe(rgb(PALETTES.light['term-background']!));
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => terminalGround(page), { timeout: 5_000 }).toBe(rgb(PALETTES.dark['term-background']!));
    expect(await ground(page)).toBe(rgb(PALETTES.dark.bg!));
    await context.close();
  });

  it('a page opened with a dark preference is dark', async () => {
    const context = await browser.newContext({ viewport: { width: 430, height: 932 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(forge.info.viewer_url);
    await page.locator('.link-state[data-state="open"]').waitFor();
    expect(await ground(page)).toBe(rgb(PALETTES.dark.bg!));
    expect(await page.evaluate(() => document.documentElement.style.colorScheme)).toBe('dark');
    await context.close();
  });
});
