/**
 * `/cdp/<page id>` is a CDP socket to the seat's own tab, taken with the agents' key: it drives
 * that tab; another seat's tab is refused by name, a page id no tab carries is refused with the
 * seat's tabs, and a person's token never opens it.
 */
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { cdpUrl, openCdp, pageIdIn } from './helpers/cdp-socket.js';

let forge: RunningServer;
let lead: Agent;
let leadPage: string;
let otherPage: string;

const LEAD = 'default/proj/lead';
const OTHER = 'default/proj/other';

const it = forgeTest({}, { '/lead': '<title>Lead page</title><p id="x">lead</p>', '/other': '<title>Other page</title>other' });

it.beforeAll(async ({ forge: f, pages, agentFor }) => {
  forge = f;
  lead = await agentFor(LEAD);
  const other = await agentFor(OTHER);
  await lead.call('browser_navigate', { url: `${pages.origin}/lead` });
  await other.call('browser_navigate', { url: `${pages.origin}/other` });
  leadPage = pageIdIn((await lead.call('browser_tabs', { action: 'list' })).text);
  otherPage = pageIdIn((await other.call('browser_tabs', { action: 'list' })).text);
});

const bearer = (): Record<string, string> => ({ authorization: `Bearer ${forge.info.token}` });

describe('a raw CDP socket drives its own seat\'s tab and nothing else', () => {
  it('drives the seat\'s own tab with Runtime.evaluate, and the agent\'s own tools see what it did', async () => {
    const s = await openCdp(cdpUrl(forge.info.port, `/cdp/${leadPage}`, { seat: LEAD }), bearer());
    const title = await s.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
    expect(title.result?.result.value).toBe('Lead page');
    await s.send('Runtime.evaluate', { expression: 'document.getElementById("x").textContent = "driven over cdp"' });
    const seen = await lead.call('browser_evaluate', { function: '() => document.getElementById("x").textContent' });
    expect(seen.text).toContain('driven over cdp');
    await s.close();
  });

  it('takes the agents\' key as ?token= too', async () => {
    const s = await openCdp(cdpUrl(forge.info.port, `/cdp/${leadPage}`, { seat: LEAD, token: forge.info.token }));
    expect((await s.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })).result?.result.value).toBe(42);
    await s.close();
  });

  it('refuses another seat\'s tab, naming the tab and its owner', async () => {
    const s = await openCdp(cdpUrl(forge.info.port, `/cdp/${otherPage}`, { seat: LEAD }), bearer());
    const end = await s.closed;
    expect(end.code).toBe(4403);
    expect(end.reason).toContain(`(${otherPage}) belongs to ${OTHER}`);
  });

  it('closes 4404 for a page id no tab carries, listing the seat\'s tabs open now', async () => {
    const s = await openCdp(cdpUrl(forge.info.port, '/cdp/p-00000000', { seat: LEAD }), bearer());
    const end = await s.closed;
    expect(end.code).toBe(4404);
    expect(end.reason).toContain('no tab carries p-00000000');
    expect(end.reason).toContain(leadPage);
  });

  it('refuses a person\'s viewer token before any socket opens, in words', async () => {
    const refused = await openCdp(cdpUrl(forge.info.port, `/cdp/${leadPage}`, { seat: LEAD }), { authorization: `Bearer ${forge.info.viewer_token}` }).catch((e: { status: number; body: string }) => e);
    expect((refused as { status: number }).status).toBe(403);
    expect((refused as { body: string }).body).toContain('person\'s token');
    const asQuery = await openCdp(cdpUrl(forge.info.port, `/cdp/${leadPage}`, { seat: LEAD, token: forge.info.viewer_token })).catch((e: { status: number }) => e);
    expect((asQuery as { status: number }).status).toBe(403);
    const none = await openCdp(cdpUrl(forge.info.port, `/cdp/${leadPage}`, { seat: LEAD })).catch((e: { status: number }) => e);
    expect((none as { status: number }).status).toBe(401);
  });
});
