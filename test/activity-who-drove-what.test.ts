/**
 * Who drove what: every agent tool call (tool, its target in words, outcome, duration) and every
 * person's act (took control, released, answered a hand-off) shows on the home as it happens,
 * newest first, filterable by seat, and is appended to <state>/activity.jsonl. In real headless
 * Chromium against a real server with real agents over MCP.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import { handOff, type Agent, type RunningServer } from './helpers/server.js';
import { openClient, PHONE_393 } from './helpers/client-page.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { refOf } from './helpers/tool-pages.js';
import { openViewer } from './helpers/viewer.js';
import { knownSecret, tokenCli } from './helpers/tokens.js';

const LEAD = 'default/act/lead';
const HELPER = 'default/act/helper';
let forge: RunningServer;
let pages: TestPages;
let browser: Browser;
let lead: Agent;
let helper: Agent;

const it = forgeTest({}, {
  '/form': '<title>Order form</title><button onclick="document.title=\'Saved\'">Save order</button>',
  '/other': '<title>Other page</title><h1>other</h1>',
});

it.beforeAll(async ({ forge: f, pages: p, clientBrowser, agentFor }) => {
  forge = f;
  pages = p;
  browser = clientBrowser;
  lead = await agentFor(LEAD);
  helper = await agentFor(HELPER);
});

const lines = (page: import('playwright-core').Page) => page.locator('.activity-item').allInnerTexts();

describe('who drove what', () => {
  it('an agent\'s click shows on the home with its target, outcome and duration, newest first', async () => {
    await lead.call('browser_navigate', { url: `${pages.url}form` });
    const snap = (await lead.call('browser_snapshot', {})).text;
    const r = await lead.call('browser_click', { element: 'the Save order button', target: refOf(snap, 'button', 'Save order') });
    expect(r.isError).toBe(false);
    const c = await openClient(browser, forge.info.viewer_url);
    const item = c.page.locator('.activity-item', { hasText: 'browser_click' }).first();
    await item.waitFor({ timeout: 15_000 });
    expect(await item.getAttribute('data-seat')).toBe(LEAD);
    expect(await item.locator('.activity-target').textContent()).toBe('the Save order button');
    expect(await item.locator('.activity-outcome').textContent()).toBe('ok');
    expect(await item.locator('.activity-ms').textContent()).toMatch(/^\d+ ms$|^\d+(\.\d)? s$/);
    expect(await item.locator('.activity-who').textContent()).toBe('agent');
    // Newest first: the click is above the navigate that came before it, and a call made now lands on top, live.
    const before = await lines(c.page);
    expect(before.findIndex((l) => l.includes('browser_click'))).toBeLessThan(before.findIndex((l) => l.includes('browser_navigate')));
    await lead.call('browser_navigate', { url: `${pages.url}other` });
    await expect.poll(async () => (await lines(c.page))[0], { timeout: 10_000 }).toMatch(/browser_navigate[\s\S]*\/other/);
    await c.close();
  });

  it('a call that fails shows as failed with the sentence the agent got', async () => {
    const r = await lead.call('browser_click', { element: 'a button that is not there', target: 'e999' });
    expect(r.isError).toBe(true);
    const c = await openClient(browser, forge.info.viewer_url);
    const item = c.page.locator('.activity-item[data-outcome="error"]', { hasText: 'a button that is not there' }).first();
    await item.waitFor({ timeout: 15_000 });
    const said = (await item.locator('.activity-outcome').textContent())!;
    expect(said.startsWith('failed: ')).toBe(true);
    expect(r.text.replace(/\s+/g, ' ')).toContain(said.slice('failed: '.length, 'failed: '.length + 40));
    await c.close();
  });

  it('a person taking and releasing control shows as their act on the tab\'s seat', async () => {
    const c = await openClient(browser, forge.info.viewer_url);
    const row = c.page.locator(`.seat-card[data-seat="${LEAD}"] .tab-row`).first();
    await row.getByRole('button', { name: /^show tab \d+$/ }).click();
    await c.page.getByRole('button', { name: 'take control' }).click();
    const took = c.page.locator('.activity-item[data-by="person"]', { hasText: 'took control' }).first();
    await took.waitFor({ timeout: 15_000 });
    expect(await took.getAttribute('data-seat')).toBe(LEAD);
    expect(await took.locator('.activity-target').textContent()).toMatch(/^tab \d+ "Other page"$/);
    expect(await took.locator('.activity-who').textContent()).toContain('person');
    await c.page.getByRole('button', { name: 'release control' }).click();
    await c.page.locator('.activity-item[data-by="person"]', { hasText: 'released control' }).first().waitFor({ timeout: 15_000 });
    await c.close();
  });

  it('a hand-off answered from a card shows how it was answered', async () => {
    const pageId = /page (p-[0-9a-f]{8})/.exec((await lead.call('browser_tabs', { action: 'list' })).text)![1]!;
    const progress: string[] = [];
    const call = handOff(lead, pageId, 'Please check the order', progress);
    const c = await openClient(browser, forge.info.viewer_url);
    await c.page.locator('.handoff-card').getByRole('button', { name: 'Not now' }).first().click();
    expect((await call).structured).toMatchObject({ answer: 'not_now' });
    const answered = c.page.locator('.activity-item[data-by="person"]', { hasText: 'answered a hand-off' }).first();
    await answered.waitFor({ timeout: 15_000 });
    expect(await answered.locator('.activity-outcome').textContent()).toBe('Not now');
    await c.close();
  });

  it('the list filters by seat, and every control keeps its target on a phone', async () => {
    await helper.call('browser_navigate', { url: `${pages.url}other` });
    const c = await openClient(browser, forge.info.viewer_url, PHONE_393);
    await c.page.locator(`.activity-item[data-seat="${HELPER}"]`).first().waitFor({ timeout: 15_000 });
    const filter = c.page.getByRole('combobox', { name: 'show the activity of' });
    expect((await filter.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await filter.selectOption(HELPER);
    await expect.poll(async () => new Set(await c.page.locator('.activity-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-seat')))), { timeout: 5_000 }).toEqual(new Set([HELPER]));
    await filter.selectOption('');
    expect(await c.page.locator(`.activity-item[data-seat="${LEAD}"]`).count()).toBeGreaterThan(0);
    await c.close();
  });

  it('every act is appended to activity.jsonl in the state dir, one JSON object a line', () => {
    const rows = readFileSync(join(forge.stateDir, 'activity.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const click = rows.find((r) => r.what === 'browser_click' && r.outcome === 'ok');
    expect(click).toMatchObject({ seat: LEAD, by: 'agent', target: 'the Save order button' });
    expect(typeof click!.ms).toBe('number');
    expect(Number.isNaN(Date.parse(click!.at as string))).toBe(false);
    expect(rows.find((r) => r.what === 'took control')).toMatchObject({ seat: LEAD, by: 'person' });
    expect(rows.find((r) => r.what === 'answered a hand-off')).toMatchObject({ seat: LEAD, by: 'person', detail: 'Not now' });
  });
});

describe('who sees which acts', () => {
  it('a token for one seat gets that seat\'s acts and never another seat\'s', async () => {
    const secret = await knownSecret(forge, tokenCli(forge, 'new', '--seat', HELPER, '--watch', '--name', 'helper-only'));
    const v = await openViewer(forge.info.port, secret);
    v.send({ t: 'activity' });
    const list = await v.next('activity');
    const seats = new Set((list.events as Array<{ seat: string }>).map((e) => e.seat));
    expect(seats).toEqual(new Set([HELPER]));
    await lead.call('browser_snapshot', {});
    await helper.call('browser_snapshot', {});
    const pushed = await v.next('activity', (m) => (m.events as Array<{ what: string }>).some((e) => e.what === 'browser_snapshot'));
    expect((pushed.events as Array<{ seat: string }>).every((e) => e.seat === HELPER)).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(v.messages.filter((m) => m.t === 'activity').flatMap((m) => m.events as Array<{ seat: string }>).some((e) => e.seat === LEAD)).toBe(false);
    await v.close();
  });

  it('a hand-off link is refused the activity list, in words', async () => {
    const pageId = /page (p-[0-9a-f]{8})/.exec((await lead.call('browser_tabs', { action: 'list' })).text)![1]!;
    const progress: string[] = [];
    const call = handOff(lead, pageId, 'One more look', progress);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 50));
    const link = /\/handoff\/(h\.\S+)/.exec(progress[0]!)![1]!;
    const v = await openViewer(forge.info.port, decodeURIComponent(link));
    v.send({ t: 'activity', id: 7 });
    const err = await v.next('error', (m) => m.id === 7);
    expect(err.message).toBe('a hand-off link opens its own page only; "activity" is not part of it');
    await v.close();
    // The person answers it from their own page, so the agent's call ends.
    const person = await openViewer(forge.info.port, forge.info.viewer_token);
    person.send({ t: 'handoffs' });
    const asks = (await person.next('handoffs', (m) => (m.asks as unknown[]).length > 0)).asks as Array<{ id: string }>;
    person.send({ t: 'answer', handoff: asks[0]!.id, answer: 'done' });
    expect((await call).structured).toMatchObject({ answer: 'done' });
    await person.close();
  });
});
