import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

let lead: Agent;
let worker: Agent;

const it = forgeTest({}, { '/': '<title>Shop</title><p>shop</p>' });

it.beforeAll(async ({ agentFor }) => {
  lead = await agentFor('default/shop/lead');
  worker = await agentFor('default/shop/worker');
});

describe('browser_end_host is the project lead\'s', () => {
  it('is refused to another seat, naming who has a page open on the host', async ({ pages }) => {
    await lead.call('browser_navigate', { url: pages.url });
    await lead.call('browser_evaluate', { function: '() => { document.cookie = "signed=in; max-age=3600; path=/"; return document.cookie; }' });
    await worker.call('browser_navigate', { url: pages.url });
    const r = await worker.call('browser_end_host');
    expect(r.isError).toBe(true);
    expect(r.text).toBe('browser_end_host is the project lead\'s (the seat labelled lead), not default/shop/worker\'s; default/shop/lead has a page open on it');
  });

  it('the lead ends the host, every tab ends with it, and the profile\'s cookies survive into the next host', async ({ pages }) => {
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
