/**
 * The strip marks a tab the hidden-tab budget unloaded, and a person's show brings it back: the
 * page is rebuilt at its address and its picture goes live, and the mark goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useClientRig } from './helpers/client-rig.js';
import { openClient, type ClientPage } from './helpers/client-page.js';
import { servePages, type PageServer } from './helpers/pages.js';

describe('an unloaded tab in the strip', () => {
  const rig = useClientRig('default/strip/lead', '[browser]\nhidden_agent_tabs = 1\n');
  let pages: PageServer;
  let client: ClientPage;

  beforeAll(async () => {
    pages = await servePages({ '/': '<title>First</title>first', '/b': '<title>Second</title>second', '/c': '<title>Third</title>third' });
    await rig.agent.callTool({ name: 'browser_navigate', arguments: { url: pages.url } });
    for (const path of ['b', 'c']) await rig.agent.callTool({ name: 'browser_tabs', arguments: { action: 'new', url: `${pages.url}${path}` } });
    client = await openClient(rig.browser, rig.server.info.viewer_url);
  });
  afterAll(async () => { await client?.close(); await pages?.close(); });

  it('is listed with its title and marked unloaded, and showing it reloads it live and clears the mark', async () => {
    await client.page.locator('#browser-row .row-count').filter({ hasText: '3' }).waitFor({ timeout: 15_000 });
    await client.page.locator('#browser-row').click();
    const first = client.page.locator('#browser-panel .tab-row').filter({ hasText: 'First' });
    await expect.poll(() => first.locator('.tab-unloaded').count(), { timeout: 15_000 }).toBe(1);
    expect(await client.page.locator('#browser-panel .tab-row').filter({ hasText: 'Third' }).locator('.tab-unloaded').count()).toBe(0);

    await first.getByRole('button', { name: 'show' }).click();
    await expect.poll(() => client.page.locator('.surface[data-phase="live"]').count(), { timeout: 20_000 }).toBe(1);
    await client.page.locator('.takeover .bar-back').click();
    if ((await client.page.locator('#browser-panel').count()) === 0) await client.page.locator('#browser-row').click();
    const again = client.page.locator('#browser-panel .tab-row').filter({ hasText: 'First' });
    await again.waitFor({ timeout: 15_000 });
    await expect.poll(() => again.locator('.tab-unloaded').count(), { timeout: 15_000 }).toBe(0);
  });
});
