/**
 * `[client] theme` pins one palette for every client: with `theme = "dark"` a page whose person
 * prefers light is dark, and stays dark when the preference changes. A value forge does not know
 * stops the server naming the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startForge, type RunningServer } from './helpers/server.js';
import { launchClientBrowser, rgb } from './helpers/client-page.js';
import { PALETTES } from '../clients/web/theme.js';
import { parseConfig } from '../src/main/config.js';

let forge: RunningServer;
let browser: Browser;

beforeAll(async () => {
  forge = await startForge({ toml: '[client]\ntheme = "dark"\n' });
  browser = await launchClientBrowser();
});

afterAll(async () => {
  await browser?.close();
  await forge?.stop();
});

describe('a pinned theme', () => {
  it('a light-preferring page is dark when the server pins dark, and stays dark when the preference changes', async () => {
    const context = await browser.newContext({ colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(forge.info.viewer_url);
    await page.locator('.link-state[data-state="open"]').waitFor();
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor), { timeout: 5_000 }).toBe(rgb(PALETTES.dark.bg!));
    await page.emulateMedia({ colorScheme: 'light' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(rgb(PALETTES.dark.bg!));
    await context.close();
  });

  it('an unknown theme is refused with its key and the values forge knows', () => {
    expect(() => parseConfig('[client]\ntheme = "solarized"\n', 'forge.toml')).toThrow(/forge\.toml:2: key client\.theme must be "system", "dark" or "light"/);
  });
});
