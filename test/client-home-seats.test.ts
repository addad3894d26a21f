/**
 * The page the printed link opens is the person's home: one card per seat that has a session, a
 * tab or a terminal, each with its agent's tabs and its terminal's state, and a terminal row per
 * seat on the strip. In real headless Chromium against a real server: two seats' tabs and
 * terminals both show, the second seat's terminal is raised from the printed link (no ?seat=), a
 * tab's show opens the takeover on it, and a seat with a session and no terminal offers start.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Agent, RunningServer } from './helpers/server.js';
import { openClient } from './helpers/client-page.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { pageScreen } from './helpers/term-screen.js';

const LEAD = 'default/shop/lead';
const HELPER = 'default/shop/helper';
const SPARE = 'default/shop/spare';
let forge: RunningServer;
let pages: TestPages;
let browser: Browser;
let lead: Agent;
let helper: Agent;

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' }, { '/alpha': '<title>Alpha page</title><h1>alpha</h1>', '/beta': '<title>Beta page</title><h1>beta</h1>' });

it.beforeAll(async ({ forge: f, pages: p, clientBrowser, agentFor }) => {
  forge = f;
  pages = p;
  browser = clientBrowser;
  lead = await agentFor(LEAD);
  helper = await agentFor(HELPER);
  await agentFor(SPARE); // a seat with a session and no terminal
  await lead.call('browser_navigate', { url: `${pages.url}alpha` });
  await helper.call('browser_navigate', { url: `${pages.url}beta` });
  await lead.call('terminal__run', { command: 'echo lead-ready' });
  await helper.call('terminal__run', { command: 'echo helper-ready' });
});

describe('the home lists every seat', () => {
  it('two seats with tabs and terminals both show as cards with their tab and terminal rows', async () => {
    const client = await openClient(browser, forge.info.viewer_url);
    const { page } = client;
    for (const [seat, title] of [[LEAD, 'Alpha page'], [HELPER, 'Beta page']] as const) {
      const card = page.locator(`.seat-card[data-seat="${seat}"]`);
      await card.waitFor({ timeout: 15_000 });
      await expect.poll(() => card.locator('.tab-row .tab-title').allTextContents(), { timeout: 10_000 }).toEqual([title]);
      expect(await card.locator('.tab-row .tab-state').textContent()).toMatch(/in use|idle/);
      await expect.poll(() => card.locator('.seat-terminal').getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
      expect(await card.locator('.seat-terminal .row-name').textContent()).toMatch(/^terminal \d+$/);
      expect(await card.getByRole('button', { name: `show the terminal of ${seat}` }).count()).toBe(1);
    }
    // The placeholder and the empty draft are gone: nothing on the home goes nowhere.
    expect(await page.getByText('The conversation appears here').count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'the chat\'s draft' }).count()).toBe(0);
    // The strip has a terminal row for each seat, each naming its seat.
    for (const seat of [LEAD, HELPER]) {
      await expect.poll(() => page.locator(`.strip button.strip-row[data-seat="${seat}"]`).getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    }
    expect(await page.locator(`.strip-row[data-seat="${HELPER}"] .row-seat`).textContent()).toBe('helper');
    await client.shot('home-seats');
    await client.close();
  });

  it('the second seat\'s terminal is raised from the printed link, from its card and from its strip row', async () => {
    const client = await openClient(browser, forge.info.viewer_url);
    const { page } = client;
    const card = page.locator(`.seat-card[data-seat="${HELPER}"]`);
    await card.getByRole('button', { name: `show the terminal of ${HELPER}` }).click();
    await expect.poll(() => page.locator('#takeover-title').textContent(), { timeout: 15_000 }).toMatch(/^terminal \d+ · bash · \//);
    await expect.poll(() => pageScreen(page), { timeout: 15_000 }).toContain('helper-ready');
    expect(await pageScreen(page)).not.toContain('lead-ready');
    await page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await page.locator(`.strip button.strip-row[data-seat="${HELPER}"]`).click();
    await expect.poll(() => pageScreen(page), { timeout: 15_000 }).toContain('helper-ready');
    await page.getByRole('button', { name: 'back to chat' }).click();
    await client.close();
  });

  it('a tab\'s show on a seat\'s card opens the takeover on that tab', async () => {
    const client = await openClient(browser, forge.info.viewer_url);
    const { page } = client;
    const row = page.locator(`.seat-card[data-seat="${HELPER}"] .tab-row`);
    await row.getByRole('button', { name: /^show tab \d+$/ }).click();
    await page.getByRole('dialog').waitFor();
    await page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    // The card says which tab is up here: its row now hides it.
    await expect.poll(() => row.getByRole('button', { name: /^hide tab \d+$/ }).count(), { timeout: 10_000 }).toBe(1);
    await page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => row.getByRole('button', { name: /^show tab \d+$/ }).count(), { timeout: 10_000 }).toBe(1);
    await client.close();
  });

  it('a seat with a session and no terminal offers start, and raising it starts one', async () => {
    const client = await openClient(browser, forge.info.viewer_url);
    const { page } = client;
    const card = page.locator(`.seat-card[data-seat="${SPARE}"]`);
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('.seat-line').textContent()).toBe('no tabs open');
    expect(await card.locator('.seat-terminal .row-state').textContent()).toBe('none runs yet');
    expect(await page.locator(`.strip button.strip-row[data-seat="${SPARE}"]`).getAttribute('data-state')).toBe('off');
    await card.getByRole('button', { name: `start the terminal of ${SPARE}` }).click();
    await expect.poll(() => page.locator('#takeover-title').textContent(), { timeout: 15_000 }).toMatch(/^terminal \d+ · bash · \//);
    await page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => card.locator('.seat-terminal').getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    await expect.poll(() => page.locator(`.strip button.strip-row[data-seat="${SPARE}"]`).getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    await client.close();
  });
});
