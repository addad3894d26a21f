/**
 * The home at a laptop's and two phones' sizes (1280x800, 430x932, 393x852), in real headless
 * Chromium against a real server: it lists both seats with their tabs and terminals at every size,
 * nothing is wider than the screen, and on a phone every control of the strip and the home keeps a
 * 44 px target.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { DESKTOP, PHONE_393, PHONE_430, openClient, type ClientSize } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';

const LEAD = 'default/phone/lead';
const HELPER = 'default/phone/helper';
const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' }, { '/a': '<title>Alpha page</title><h1>a</h1>', '/b': '<title>Beta page</title><h1>b</h1>' });

/** Every visible control on the page: its name and box. */
async function controls(page: Page): Promise<Array<{ name: string; w: number; h: number; right: number }>> {
  return page.evaluate(() => [...document.querySelectorAll<HTMLElement>('.shell button, .shell select, .shell input, .shell a[href], .shell [role="button"]')]
    .filter((el) => el.offsetParent !== null && getComputedStyle(el).visibility !== 'hidden')
    .map((el) => { const r = el.getBoundingClientRect(); return { name: el.getAttribute('aria-label') || el.textContent?.trim() || el.tagName, w: r.width, h: r.height, right: r.right }; }));
}

const SIZES: Array<[string, ClientSize]> = [['1280x800', DESKTOP], ['430x932', PHONE_430], ['393x852', PHONE_393]];

describe('the home on a laptop and a phone', () => {
  it.beforeAll(async ({ pages, agentFor }) => {
    const lead = await agentFor(LEAD);
    const helper = await agentFor(HELPER);
    await lead.call('browser_navigate', { url: `${pages.url}a` });
    await helper.call('browser_navigate', { url: `${pages.url}b` });
    await lead.call('terminal__run', { command: 'echo lead' });
    await helper.call('terminal__run', { command: 'echo helper' });
  });

  for (const [name, size] of SIZES) {
    it(`at ${name} both seats show with their tab and terminal${size.touch ? ', and every control keeps a 44 px target' : ''}`, async ({ forge, clientBrowser }) => {
      const client = await openClient(clientBrowser, forge.info.viewer_url, size);
      const { page } = client;
      for (const [seat, title] of [[LEAD, 'Alpha page'], [HELPER, 'Beta page']] as const) {
        const card = page.locator(`.seat-card[data-seat="${seat}"]`);
        await expect.poll(() => card.locator('.tab-row .tab-title').allTextContents(), { timeout: 15_000 }).toEqual([title]);
        await expect.poll(() => card.locator('.seat-terminal').getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
      }
      // Nothing runs off the side of the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      const all = await controls(page);
      expect(all.length).toBeGreaterThan(4);
      for (const c of all) expect(c.right, c.name).toBeLessThanOrEqual(size.width + 0.5);
      if (size.touch) {
        for (const c of all) {
          expect(c.w, `${c.name} (width)`).toBeGreaterThanOrEqual(44);
          expect(c.h, `${c.name} (height)`).toBeGreaterThanOrEqual(44);
        }
      }
      await client.shot(`home-${name}`);
      await client.close();
    });
  }
});
