/**
 * `/cdp?seat=…` is a browser-level CDP endpoint showing the seat its own tabs only: an agent's own
 * playwright-core `connectOverCDP` works on it, sees none of another seat's tabs, and a page it
 * opens is the seat's tab (in its browser_tabs); Browser.close and other seats' targets are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { cdpUrl, openCdp } from './helpers/cdp-socket.js';

const LEAD = 'default/proj/lead';
const OTHER = 'default/proj/other';
let forge: RunningServer;
let pages: PageServer;
let lead: Agent;
let other: Agent;
let browser: Browser | undefined;

beforeAll(async () => {
  forge = await startForge();
  pages = await servePages({ '/mine': '<title>Mine</title>mine', '/theirs': '<title>Theirs</title>theirs', '/opened': '<title>Opened over CDP</title>opened' });
  lead = await connectAgent(forge, LEAD);
  other = await connectAgent(forge, OTHER);
  await lead.call('browser_navigate', { url: `${pages.origin}/mine` });
  await other.call('browser_navigate', { url: `${pages.origin}/theirs` });
});

afterAll(async () => {
  await browser?.close().catch(() => undefined);
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

const seatUrl = (seat: string): string => cdpUrl(forge.info.port, '/cdp', { seat, token: forge.info.token });

describe('the seat\'s CDP endpoint', () => {
  it('lets playwright-core connectOverCDP in, showing the seat\'s own tabs and no other seat\'s', async () => {
    browser = await chromium.connectOverCDP(seatUrl(LEAD), { timeout: 30_000 });
    const context = browser.contexts()[0]!;
    const titles = await Promise.all(context.pages().map((p) => p.title()));
    expect(titles).toEqual(['Mine']);
    expect(await context.pages()[0]!.evaluate(() => document.body.textContent)).toBe('mine');
  });

  it('opens a page that is the seat\'s tab, listed in its browser_tabs over MCP', async () => {
    const page = await browser!.contexts()[0]!.newPage();
    await page.goto(`${pages.origin}/opened`);
    expect(await page.title()).toBe('Opened over CDP');
    // forge learns the title from the page's own load events, a moment after the client does.
    const list = await listUntil(lead, (text) => text.includes('Opened over CDP'));
    expect(list).toMatch(/Opened over CDP · .*\/opened · page p-[0-9a-f]{8} · owner default\/proj\/lead/);
    // The other seat sees it only as the lead's tab.
    expect((await other.call('browser_tabs', { action: 'list' })).text).not.toContain('Opened over CDP');
    await page.close();
    expect(await listUntil(lead, (text) => !text.includes('/opened'))).not.toContain('/opened');
  });

  it('refuses Browser.close and another seat\'s target by name, and the shared browser runs on', async () => {
    const s = await openCdp(seatUrl(LEAD));
    const close = await s.send('Browser.close');
    expect(close.error?.message).toContain('Browser.close is refused: the browser is shared');
    // The other seat's target, as the other seat's own endpoint shows it.
    const o = await openCdp(seatUrl(OTHER));
    const theirs = (await o.send('Target.getTargets')).result!.targetInfos as Array<{ targetId: string; title: string }>;
    expect(theirs.map((t) => t.title)).toEqual(['Theirs']);
    const attach = await s.send('Target.attachToTarget', { targetId: theirs[0]!.targetId, flatten: true });
    expect(attach.error?.message).toContain(`which belongs to ${OTHER}`);
    const shut = await s.send('Target.closeTarget', { targetId: theirs[0]!.targetId });
    expect(shut.error?.message).toContain(`which belongs to ${OTHER}`);
    const mine = (await s.send('Target.getTargets')).result!.targetInfos as Array<{ title: string }>;
    expect(mine.map((t) => t.title)).toEqual(['Mine']);
    expect((await other.call('browser_snapshot')).text).toContain('theirs');
    await s.close();
    await o.close();
  });
});
