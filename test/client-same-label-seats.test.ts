/**
 * Seats of different projects share labels (every project has a `lead`): the strip's terminal
 * rows and the activity list name each by its project and label where labels collide, so a person
 * can tell which `lead` is which, and by its label alone where it is unique. In real headless
 * Chromium against a real server.
 */
import { describe, expect } from 'vitest';
import { openClient } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';

const SHOP_LEAD = 'default/shop/lead';
const BLOG_LEAD = 'default/blog/lead';
const SHOP_HELPER = 'default/shop/helper';

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' });

describe('seats that share a label', () => {
  it('the strip and the activity list tell the two leads apart, and name the helper by its label', async ({ forge, clientBrowser, agentFor }) => {
    for (const seat of [SHOP_LEAD, BLOG_LEAD, SHOP_HELPER]) {
      const a = await agentFor(seat);
      await a.call('terminal__run', { command: 'echo ready' });
    }
    const client = await openClient(clientBrowser, forge.info.viewer_url);
    const { page } = client;
    const rowName = (seat: string): Promise<string | null> => page.locator(`.strip-row[data-seat="${seat}"] .row-seat`).textContent();
    await expect.poll(() => rowName(SHOP_LEAD), { timeout: 15_000 }).toBe('shop/lead');
    expect(await rowName(BLOG_LEAD)).toBe('blog/lead');
    expect(await rowName(SHOP_HELPER)).toBe('helper');

    const lineSeat = (seat: string) => page.locator(`.activity-item[data-seat="${seat}"] .activity-seat`).first();
    await expect.poll(() => lineSeat(BLOG_LEAD).textContent(), { timeout: 15_000 }).toBe('blog/lead');
    expect(await lineSeat(SHOP_LEAD).textContent()).toBe('shop/lead');
    expect(await lineSeat(SHOP_LEAD).getAttribute('title')).toBe(SHOP_LEAD);
    expect(await lineSeat(SHOP_HELPER).textContent()).toBe('helper');
    await client.close();
  });
});
