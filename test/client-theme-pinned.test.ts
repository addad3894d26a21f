/**
 * `[client] theme` pins one palette for every client: with `theme = "dark"` a page whose person
 * prefers light is dark, and stays dark when the preference changes. A value forge does not know
 * stops the server naming the key.
 */
import { describe, expect } from 'vitest';
import { rgb } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';
import { PALETTES } from '../clients/web/theme.js';
import { parseConfig } from '../src/main/config.js';

const it = forgeTest({ toml: '[client]\ntheme = "dark"\n' });

describe('a pinned theme', () => {
  it('a light-preferring page is dark when the server pins dark, and stays dark when the preference changes', async ({ forge, clientBrowser: browser }) => {
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
