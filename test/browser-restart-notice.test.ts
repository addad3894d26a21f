/**
 * A seat whose tabs went with the browser (an idle close, the lead's browser_end_host) reads why
 * once, at the top of its next browser call's answer, and that call still runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';

let pages: PageServer;

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Shop</title><p>shop floor</p>' });
});

afterAll(async () => {
  await pages?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const notice = (cause: string): RegExp => new RegExp(`^Note: the browser restarted at \\d\\d:\\d\\d \\(${cause}\\): your tabs are gone; cookies and logins are kept\\.\\n`);
const count = (text: string, what: string): number => text.split(what).length - 1;

describe('after the lead ends the host', () => {
  let forge: RunningServer;
  let lead: Agent;
  let worker: Agent;

  beforeAll(async () => {
    forge = await startForge();
    lead = await connectAgent(forge, 'default/shop/lead');
    worker = await connectAgent(forge, 'default/shop/worker');
  });

  afterAll(async () => {
    await lead?.close();
    await worker?.close();
    await forge?.stop();
  });

  it('the other seat\'s next call says once who ended it and still runs; the call after does not say it, nor does the lead\'s', async () => {
    await lead.call('browser_navigate', { url: pages.url });
    await worker.call('browser_navigate', { url: pages.url });
    expect((await lead.call('browser_end_host')).isError).toBe(false);

    const next = await worker.call('browser_navigate', { url: pages.url });
    expect(next.isError).toBe(false);
    expect(next.text).toMatch(notice('ended by default/shop/lead'));
    expect(count(next.text, 'the browser restarted')).toBe(1);
    expect(next.text).toContain('shop floor');

    const after = await worker.call('browser_snapshot');
    expect(after.text).not.toContain('the browser restarted');
    const leads = await lead.call('browser_navigate', { url: pages.url });
    expect(leads.isError).toBe(false);
    expect(leads.text).not.toContain('the browser restarted');
  });
});

describe('after an idle close', () => {
  let forge: RunningServer;
  let a: Agent;
  let b: Agent;

  beforeAll(async () => {
    // 0.05 minutes: the idle close comes 3 s after the last call.
    forge = await startForge({ toml: '[browser]\nidle_minutes = 0.05\n' });
    a = await connectAgent(forge, 'default/idle/lead');
    b = await connectAgent(forge, 'default/idle/worker');
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await forge?.stop();
  });

  it('each seat that had tabs is told once in its next call, even one that only lists, and a seat with no tab is not told', async () => {
    await a.call('browser_navigate', { url: pages.url });
    await b.call('browser_navigate', { url: pages.url });
    const c = await connectAgent(forge, 'default/idle/bystander');
    try {
      await sleep(5500);
      const listed = await b.call('browser_tabs', { action: 'list' });
      expect(listed.text).toMatch(notice('closed after 0.05 idle minutes'));
      expect(listed.text).toContain('No browser host runs');
      expect((await b.call('browser_tabs', { action: 'list' })).text).not.toContain('the browser restarted');

      const next = await a.call('browser_navigate', { url: pages.url });
      expect(next.isError).toBe(false);
      expect(next.text).toMatch(notice('closed after 0.05 idle minutes'));
      expect(next.text).toContain('shop floor');
      expect((await a.call('browser_snapshot')).text).not.toContain('the browser restarted');

      expect((await c.call('browser_tabs', { action: 'list' })).text).not.toContain('the browser restarted');
    } finally {
      await c.close();
    }
  });
});
