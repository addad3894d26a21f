/**
 * An agent's own Puppeteer connects to the seat's CDP endpoint (`/cdp?seat=…`, the agents' key)
 * as it connects to any browser: it sees the seat's own pages and no other seat's, drives them, a
 * page it opens is the seat's tab (listed in its browser_tabs), and its browser.close() does not
 * end the shared browser for anyone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { cdpUrl } from './helpers/cdp-socket.js';

const LEAD = 'default/pptr/lead';
const OTHER = 'default/pptr/other';
let forge: RunningServer;
let pages: PageServer;
let lead: Agent;
let other: Agent;
let browser: Browser | undefined;

beforeAll(async () => {
  forge = await startForge();
  pages = await servePages({ '/mine': '<title>Mine</title>mine', '/theirs': '<title>Theirs</title>theirs', '/opened': '<title>Opened by Puppeteer</title>opened' });
  lead = await connectAgent(forge, LEAD);
  other = await connectAgent(forge, OTHER);
  await lead.call('browser_navigate', { url: `${pages.origin}/mine` });
  await other.call('browser_navigate', { url: `${pages.origin}/theirs` });
});

afterAll(async () => {
  await browser?.disconnect().catch(() => undefined);
  await lead?.close();
  await other?.close();
  await forge?.stop();
  await pages?.close();
});

/** The agent's browser_tabs list once `ok` holds for it (or the last one after 5 s). */
async function listUntil(agent: Agent, ok: (text: string) => boolean): Promise<string> {
  let text = '';
  for (let i = 0; i < 50; i++) {
    text = (await agent.call('browser_tabs', { action: 'list' })).text;
    if (ok(text)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return text;
}

describe('Puppeteer on the seat\'s CDP endpoint', () => {
  it('connects and sees the seat\'s own page only, and drives it', async () => {
    browser = await puppeteer.connect({ browserWSEndpoint: cdpUrl(forge.info.port, '/cdp', { seat: LEAD, token: forge.info.token }), defaultViewport: null, protocolTimeout: 30_000 });
    const all = await browser.pages();
    const titles = await Promise.all(all.map((p) => p.title()));
    expect(titles).toEqual(['Mine']);
    expect(await all[0]!.evaluate(() => document.body.textContent)).toBe('mine');
  });

  it('opens a page that is the seat\'s tab, listed in its browser_tabs over MCP and not in another seat\'s', async () => {
    const page = await browser!.newPage();
    await page.goto(`${pages.origin}/opened`);
    expect(await page.title()).toBe('Opened by Puppeteer');
    expect(await listUntil(lead, (t) => t.includes('Opened by Puppeteer'))).toContain('Opened by Puppeteer');
    expect((await other.call('browser_tabs', { action: 'list' })).text).not.toContain('Opened by Puppeteer');
  });

  it('does not end the shared browser when it closes: the other seat\'s page goes on', async () => {
    await browser!.close().catch(() => undefined);
    browser = undefined;
    const r = await other.call('browser_evaluate', { function: '() => document.title' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('Theirs');
  });
});
