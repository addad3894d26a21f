/**
 * The home lists every seat's tabs whatever profile they live in: a project with a browser
 * profile of its own ([projects.NAME] browser_profile) has its seats' tabs on that profile's host,
 * and the printed link (no ?seat=) still shows them, live, on their seat's card. In real headless
 * Chromium against a real server: both profiles' tabs show on their cards with thumbnails, a
 * show of the other profile's tab opens the takeover on that profile with its own tabs in the
 * picker, and that profile's hand-off opens from its card. Over a real socket: `tabs` with
 * `every` pushes each profile's list, and a token for one seat sees that seat's tabs only.
 */
import { describe, expect } from 'vitest';
import { openClient } from './helpers/client-page.js';
import { handOff } from './helpers/server.js';
import { openViewer } from './helpers/viewer.js';
import { knownSecret, tokenCli } from './helpers/tokens.js';
import { forgeTest } from './fixtures.js';

const SHOP = 'default/shop/lead';
const OFFICE = 'default/office/lead';
const it = forgeTest({ toml: '[projects.office]\nbrowser_profile = "office"\n' }, {
  '/alpha': '<title>Alpha page</title><h1>alpha</h1>',
  '/beta': '<title>Beta page</title><h1>beta</h1>',
  '/gamma': '<title>Gamma page</title><h1>gamma</h1>',
});

const pageIdOf = (text: string): string => /page (p-[0-9a-f]{8})/.exec(text)![1]!;

describe('the home across the org\'s profiles', () => {
  it('a seat whose project has its own profile shows its tabs on its card, and show opens that profile\'s tab', async ({ forge, pages, clientBrowser, agentFor }) => {
    const shop = await agentFor(SHOP);
    const office = await agentFor(OFFICE);
    await shop.call('browser_navigate', { url: `${pages.url}alpha` });
    await office.call('browser_navigate', { url: `${pages.url}beta` });
    await office.call('browser_tabs', { action: 'new', url: `${pages.url}gamma` });
    const client = await openClient(clientBrowser, forge.info.viewer_url);
    const { page } = client;
    const titles = (seat: string) => page.locator(`.seat-card[data-seat="${seat}"] .tab-row .tab-title`).allTextContents();
    await expect.poll(() => titles(SHOP), { timeout: 15_000 }).toEqual(['Alpha page']);
    await expect.poll(() => titles(OFFICE), { timeout: 15_000 }).toEqual(['Beta page', 'Gamma page']);
    // Its tabs have live pictures too.
    await page.locator(`.seat-card[data-seat="${OFFICE}"] img.tab-thumb`).first().waitFor({ timeout: 15_000 });
    await client.shot('home-two-profiles');

    const row = page.locator(`.seat-card[data-seat="${OFFICE}"] .tab-row`).filter({ hasText: 'Beta page' });
    await row.getByRole('button', { name: /^show tab \d+$/ }).click();
    await page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    // The bar names the browser it is over: the project's own profile, not the org's.
    await expect.poll(() => page.locator('#takeover-title').textContent(), { timeout: 10_000 }).toBe('the browser · default/office');
    await expect.poll(() => row.getByRole('button', { name: /^hide tab \d+$/ }).count(), { timeout: 10_000 }).toBe(1);
    // The picker lists that profile's tabs, and moves to its other one.
    await page.locator('.picker-button').click();
    expect(await page.locator('.picker-item .tab-title').allTextContents()).toEqual(['Beta page', 'Gamma page']);
    await page.locator('.picker-item').filter({ hasText: 'Gamma page' }).click();
    const gamma = page.locator(`.seat-card[data-seat="${OFFICE}"] .tab-row`).filter({ hasText: 'Gamma page' });
    await expect.poll(() => gamma.getByRole('button', { name: /^hide tab \d+$/ }).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.locator('#takeover-title').textContent(), { timeout: 10_000 }).toBe('the browser · default/office');
    await page.getByRole('button', { name: 'back to chat' }).click();
    await client.close();
  });

  it('a hand-off on the project\'s own profile opens from its card and its Done answers the agent', async ({ forge, clientBrowser, agentFor }) => {
    const office = await agentFor(OFFICE);
    const pageId = pageIdOf((await office.call('browser_tabs', { action: 'list' })).text);
    const client = await openClient(clientBrowser, forge.info.viewer_url);
    const { page } = client;
    const call = handOff(office, pageId, 'Please sign in here');
    const card = page.locator('.handoff-card');
    await card.waitFor({ timeout: 15_000 });
    await card.getByRole('button', { name: 'Open browser' }).click();
    // The page the ask named, live: its own profile's, which the page's own (the org's) does not hold.
    await page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#takeover-title').textContent()).toMatch(/^browser hand-off · tab \d+$/);
    await page.getByRole('button', { name: 'back to chat' }).click();
    await card.getByRole('button', { name: 'Done' }).click();
    expect((await call).structured).toMatchObject({ answer: 'done', page_id: pageId });
    await client.close();
  });

  it('tabs with every pushes each of the org\'s profiles, and a token for one seat sees only that seat\'s tabs', async ({ forge, pages, agentFor }) => {
    await agentFor(SHOP);
    const office = await agentFor(OFFICE);
    const whole = await openViewer(forge.info.port, forge.info.viewer_token);
    whole.send({ t: 'tabs', every: true });
    const own = await whole.next('tabs', (m) => m.also === undefined);
    const also = await whole.next('tabs', (m) => m.also === true);
    expect(own.profile).toBe('default/default');
    expect(also.profile).toBe('default/office');
    expect((also.tabs as Array<{ owner: string }>).map((t) => t.owner)).toContain(OFFICE);
    // A new tab on the other profile is pushed to the subscriber as it opens.
    await office.call('browser_tabs', { action: 'new', url: `${pages.url}alpha` });
    await whole.next('tabs', (m) => m.also === true && (m.tabs as unknown[]).length === 3);
    await whole.close();

    const secret = await knownSecret(forge, tokenCli(forge, 'new', '--seat', SHOP, '--watch', '--name', 'shop-only'));
    const limited = await openViewer(forge.info.port, secret);
    limited.send({ t: 'tabs', every: true });
    const mine = await limited.next('tabs', (m) => m.also === undefined);
    const theirs = await limited.next('tabs', (m) => m.also === true);
    expect((mine.tabs as Array<{ owner: string }>).map((t) => t.owner)).toEqual([SHOP]);
    expect(theirs.tabs).toEqual([]);
    await limited.close();
  });
});
