/**
 * The web client follows its credential: a watch-only token's page shows take control greyed with
 * why, and a hand-off link's page, once its hand-off is answered, says the link opens nothing more
 * and does not reconnect.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import { handOff, type RunningServer, type Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { openClient, type ClientPage } from './helpers/client-page.js';
import { knownSecret, tokenCli } from './helpers/tokens.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let agent: Agent;
let browser: Browser;
let pageId = '';

const it = forgeTest({}, { '/': '<title>Board</title><button>Go</button>' });

it.beforeAll(async ({ forge: server, pages: served, agentFor, clientBrowser }) => {
  forge = server;
  pages = served;
  browser = clientBrowser;
  agent = await agentFor('default/view/lead');
  await agent.call('browser_navigate', { url: pages.url });
  pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
});

/** A watch-only token's viewer URL, once the server has read the token. */
async function watchUrl(): Promise<string> {
  const secret = await knownSecret(forge, tokenCli(forge, 'new', '--watch', '--name', 'tv'));
  return `${new URL(forge.info.viewer_url).origin}/?token=${secret}`;
}

describe('the client and its credential', () => {
  it('a watch-only token\'s page watches the tab, with take control greyed and saying why', async () => {
    const c: ClientPage = await openClient(browser, await watchUrl());
    await c.page.locator('#browser-row').click();
    await c.page.locator('#browser-panel .tab-row', { hasText: 'Board' }).getByRole('button', { name: 'show' }).click();
    const take = c.page.getByRole('button', { name: 'take control' });
    await expect.poll(() => c.page.locator('.takeover [data-role="watcher"]').count()).toBeGreaterThan(0);
    expect(await take.isDisabled()).toBe(true);
    expect(await take.getAttribute('title')).toBe('this link is for watching: it cannot take control');
    await c.close();
  });

  it('a hand-off link\'s page, once answered, says the link opens nothing more and stays closed', async () => {
    const progress: string[] = [];
    const call = handOff(agent, pageId, 'Please sign in', progress);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 50));
    const link = /(http:\/\/\S+\/handoff\/h\.\S+)/.exec(progress[0]!)![1]!;
    const c = await openClient(browser, link);
    await c.page.getByRole('button', { name: 'Done' }).first().click();
    expect((await call).structured).toMatchObject({ answer: 'done' });
    const state = c.page.locator('.link-state');
    await expect.poll(() => state.getAttribute('data-state')).toBe('ended');
    expect(await state.textContent()).toBe('this hand-off is over (answered or withdrawn); its link opens nothing more');
    // It does not knock again: no reconnect follows within several backoff periods.
    await c.page.waitForTimeout(3000);
    expect(await state.getAttribute('data-state')).toBe('ended');
    await c.close();
  });
});
