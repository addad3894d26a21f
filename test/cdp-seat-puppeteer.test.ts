/**
 * An agent's own Puppeteer connects to the seat's CDP endpoint (`/cdp?seat=…`, the agents' key)
 * as it connects to any browser: it sees the seat's own pages and no other seat's, drives them, a
 * page it opens is the seat's tab (listed in its browser_tabs), and its browser.close() does not
 * end the shared browser for anyone.
 */
import { describe, expect } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { cdpSeatsTest, listUntil } from './helpers/cdp-seats.js';

let browser: Browser | undefined;

const it = cdpSeatsTest('pptr', 'Opened by Puppeteer');

it.afterAll(async () => {
  await browser?.disconnect().catch(() => undefined);
});

describe('Puppeteer on the seat\'s CDP endpoint', () => {
  it('connects and sees the seat\'s own page only, and drives it', async ({ seats }) => {
    browser = await puppeteer.connect({ browserWSEndpoint: seats.url(seats.LEAD), defaultViewport: null, protocolTimeout: 30_000 });
    const all = await browser.pages();
    const titles = await Promise.all(all.map((p) => p.title()));
    expect(titles).toEqual(['Mine']);
    expect(await all[0]!.evaluate(() => document.body.textContent)).toBe('mine');
  });

  it('opens a page that is the seat\'s tab, listed in its browser_tabs over MCP and not in another seat\'s', async ({ seats, pages }) => {
    const page = await browser!.newPage();
    await page.goto(`${pages.origin}/opened`);
    expect(await page.title()).toBe('Opened by Puppeteer');
    expect(await listUntil(seats.lead, (t) => t.includes('Opened by Puppeteer'))).toContain('Opened by Puppeteer');
    expect((await seats.other.call('browser_tabs', { action: 'list' })).text).not.toContain('Opened by Puppeteer');
  });

  it('does not end the shared browser when it closes: the other seat\'s page goes on', async ({ seats }) => {
    await browser!.close().catch(() => undefined);
    browser = undefined;
    const r = await seats.other.call('browser_evaluate', { function: '() => document.title' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('Theirs');
  });
});
