/**
 * Hand-offs find the person on the home, in real headless Chromium against a real server: a parked
 * hand-off's card comes before every seat's card and its Done answers the agent; the page's title
 * counts the asks waiting, browser and terminal, and goes back once they are answered; with the
 * person's permission, an ask that arrives while they look at another window raises a notification
 * naming the seat and the agent's words, and clicking it opens the ask.
 */
import { describe, expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { handOff, type Agent, type RunningServer } from './helpers/server.js';
import { openClient } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';

const LEAD = 'default/shop/lead';
const HELPER = 'default/shop/helper';
let forge: RunningServer;
let browser: Browser;
let lead: Agent;
let helper: Agent;
let leadPage = '';

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' }, { '/': '<title>Checkout</title><h1>checkout</h1>', '/other': '<title>Other</title><h1>other</h1>' });

it.beforeAll(async ({ forge: f, pages, clientBrowser, agentFor }) => {
  forge = f;
  browser = clientBrowser;
  lead = await agentFor(LEAD);
  helper = await agentFor(HELPER);
  await lead.call('browser_navigate', { url: pages.url });
  await helper.call('browser_navigate', { url: `${pages.url}other` });
  await helper.call('terminal__run', { command: 'echo helper-ready' });
  leadPage = /page (p-[0-9a-f]{8})/.exec((await lead.call('browser_tabs', { action: 'list' })).text)![1]!;
});

const top = (page: Page, selector: string): Promise<number> => page.locator(selector).first().evaluate((e) => e.getBoundingClientRect().top);

describe('hand-offs on the home', () => {
  it('a parked hand-off\'s card comes before the seats\' cards, the title counts it, and Done answers it', async () => {
    const client = await openClient(browser, forge.info.viewer_url);
    const { page } = client;
    await page.locator(`.seat-card[data-seat="${HELPER}"]`).waitFor({ timeout: 15_000 });
    expect(await page.title()).toBe('forge');
    const call = handOff(lead, leadPage, 'Please approve the order');
    const card = page.locator('.handoff-card');
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('.card-words').textContent()).toBe('Please approve the order');
    expect(await card.locator('.card-seat').textContent()).toBe(LEAD);
    expect(await top(page, '.handoff-card')).toBeLessThan(await top(page, '.seat-card'));
    await expect.poll(() => page.title(), { timeout: 5000 }).toBe('(1) forge');
    await client.shot('home-handoff');
    await card.getByRole('button', { name: 'Done' }).click();
    const r = await call;
    expect(r.structured).toMatchObject({ answer: 'done', page_id: leadPage });
    await expect.poll(() => card.count(), { timeout: 5000 }).toBe(0);
    await expect.poll(() => page.title(), { timeout: 5000 }).toBe('forge');
    await client.close();
  });

  it('the title counts a browser and a terminal hand-off together, and goes back as each is answered', async () => {
    const client = await openClient(browser, forge.info.viewer_url);
    const { page } = client;
    await page.locator(`.seat-card[data-seat="${HELPER}"]`).waitFor({ timeout: 15_000 });
    const browserCall = handOff(lead, leadPage, 'Sign in please');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('(1) forge');
    const termCall = helper.client.callTool({ name: 'terminal_hand_off', arguments: { reason: 'type the passphrase' } }, undefined, { timeout: 60_000 });
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('(2) forge');
    const termCard = page.locator('article[aria-label^="terminal hand-off · terminal "]');
    expect(await termCard.locator('.card-seat').textContent()).toBe(HELPER);
    expect(await top(page, 'article[aria-label^="terminal hand-off"]')).toBeLessThan(await top(page, '.seat-card'));
    await termCard.getByRole('button', { name: 'Not now' }).click();
    expect((await termCall).structuredContent).toMatchObject({ answer: 'not_now' });
    await expect.poll(() => page.title(), { timeout: 5000 }).toBe('(1) forge');
    await page.locator('.handoff-card[data-handoff]').getByRole('button', { name: 'Not now' }).click();
    expect((await browserCall).structured).toMatchObject({ answer: 'not_now' });
    await expect.poll(() => page.title(), { timeout: 5000 }).toBe('forge');
    await client.close();
  });

  it('with the person\'s permission, an ask that arrives while they look elsewhere notifies with the seat and the words, and the click opens it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // The browser's notifications, recorded: the page asks for permission, and the person looks at another window.
    await context.addInitScript(() => {
      const shown: Array<{ title: string; body: string; n: { onclick: (() => void) | null; close(): void } }> = [];
      class RecordedNotification {
        static permission: NotificationPermission = 'default';
        static requestPermission(): Promise<NotificationPermission> { RecordedNotification.permission = 'granted'; return Promise.resolve('granted'); }
        onclick: (() => void) | null = null;
        constructor(title: string, opts: { body?: string } = {}) { shown.push({ title, body: opts.body ?? '', n: this }); }
        close(): void {}
      }
      Object.defineProperty(window, 'Notification', { value: RecordedNotification, configurable: true });
      Object.defineProperty(window, '__shown', { value: shown });
      document.hasFocus = () => false;
    });
    const page = await context.newPage();
    await page.goto(forge.info.viewer_url);
    await page.locator('.link-state[data-state="open"]').waitFor();
    await page.getByRole('button', { name: 'Notify me of hand-offs' }).click();
    await expect.poll(() => page.locator('.notify-line').textContent()).toBe('This page notifies you of a hand-off while it is open.');
    expect(await page.getByRole('button', { name: 'Notify me of hand-offs' }).count()).toBe(0);
    const call = handOff(lead, leadPage, 'Check the total');
    const shown = (): Promise<Array<{ title: string; body: string }>> => page.evaluate(() => (window as unknown as { __shown: Array<{ title: string; body: string }> }).__shown.map(({ title, body }) => ({ title, body })));
    await expect.poll(shown, { timeout: 15_000 }).toEqual([{ title: `${LEAD} hands off to you`, body: 'Check the total' }]);
    await page.evaluate(() => (window as unknown as { __shown: Array<{ n: { onclick: () => void } }> }).__shown[0]!.n.onclick());
    await page.getByRole('dialog', { name: /^browser hand-off · tab \d+$/ }).waitFor({ timeout: 15_000 });
    expect(await page.locator('.ask-words').textContent()).toBe('Check the total');
    await page.getByRole('button', { name: 'Done' }).click();
    expect((await call).structured).toMatchObject({ answer: 'done' });
    // The same ask does not notify twice, and an answered one raises nothing more.
    expect(await shown()).toHaveLength(1);
    await context.close();
  });
});
