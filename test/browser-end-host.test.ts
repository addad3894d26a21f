import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';

let forge: RunningServer;
let pages: PageServer;
let lead: Agent;
let worker: Agent;

beforeAll(async () => {
  forge = await startForge();
  pages = await servePages({ '/': '<title>Shop</title><p>shop</p>' });
  lead = await connectAgent(forge, 'default/shop/lead');
  worker = await connectAgent(forge, 'default/shop/worker');
});

afterAll(async () => {
  await lead?.close();
  await worker?.close();
  await forge?.stop();
  await pages?.close();
});

describe('browser_end_host is the project lead\'s', () => {
  it('is refused to another seat, naming who has a page open on the host', async () => {
    await lead.call('browser_navigate', { url: pages.url });
    await lead.call('browser_evaluate', { function: '() => { document.cookie = "signed=in; max-age=3600; path=/"; return document.cookie; }' });
    await worker.call('browser_navigate', { url: pages.url });
    const r = await worker.call('browser_end_host');
    expect(r.isError).toBe(true);
    expect(r.text).toBe('browser_end_host is the project lead\'s (the seat labelled lead), not default/shop/worker\'s; default/shop/lead has a page open on it');
  });

  it('the lead ends the host, every tab ends with it, and the profile\'s cookies survive into the next host', async () => {
    const r = await lead.call('browser_end_host');
    expect(r.isError).toBe(false);
    expect(r.text).toContain('the tabs of default/shop/worker ended with it');
    const list = await worker.call('browser_tabs', { action: 'list' });
    expect(list.text).toContain('No browser host runs');
    await lead.call('browser_navigate', { url: pages.url });
    const cookie = await lead.call('browser_evaluate', { function: '() => document.cookie' });
    expect(cookie.text).toContain('signed=in');
  });
});
