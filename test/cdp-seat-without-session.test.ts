/**
 * A seat with no MCP session yet, named by `?seat=` with the agents' key, opens tabs through its
 * CDP endpoint: the host starts for it, and the tabs it opens are the seat's — its own
 * connectOverCDP sees them, the seat's first MCP session finds them in its browser_tabs, and
 * another seat sees none of them.
 */
import { describe, expect } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { cdpUrl } from './helpers/cdp-socket.js';
import { forgeTest } from './fixtures.js';

const SEAT = 'default/fresh/worker';
let browser: Browser | undefined;

const it = forgeTest({}, { '/opened': '<title>Opened before any session</title>opened' });

it.afterAll(async () => {
  await browser?.close().catch(() => undefined);
});

describe('a seat with no MCP session on its CDP endpoint', () => {
  it('opens a tab that is the seat\'s, found by the seat\'s first MCP session and by no other seat', async ({ forge, pages, agentFor }) => {
    browser = await chromium.connectOverCDP(cdpUrl(forge.info.port, '/cdp', { seat: SEAT, token: forge.info.token }), { timeout: 60_000 });
    const context = browser.contexts()[0]!;
    expect(context.pages().length).toBe(0);
    const page = await context.newPage();
    await page.goto(`${pages.origin}/opened`);
    expect(await page.title()).toBe('Opened before any session');

    const agent = await agentFor(SEAT);
    let list = '';
    for (let i = 0; i < 50 && !list.includes('Opened before any session'); i++) {
      list = (await agent.call('browser_tabs', { action: 'list' })).text;
      if (!list.includes('Opened before any session')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(list).toMatch(/Opened before any session · .*\/opened · page p-[0-9a-f]{8} · owner default\/fresh\/worker/);
    // Its first page call drives that tab, not a new one.
    expect((await agent.call('browser_snapshot')).text).toContain('opened');
    expect((await (await agentFor('default/fresh/other')).call('browser_tabs', { action: 'list' })).text).not.toContain('/opened');
  });
});
