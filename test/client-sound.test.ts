/**
 * The web client plays the page's sound for the controller: the tab row says a tab plays sound,
 * the take-control press unlocks playback and the bar's speaker mark shows the page heard, with
 * a mute of this client's own; a watcher has no speaker mark and hears nothing.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import type { RunningServer, Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { openClient, type ClientPage } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let agent: Agent;
let browser: Browser;
let a: ClientPage;
let b: ClientPage;

const TONE = `<title>Tone</title><p style="font-size:40px">a tone</p>
<script>function play() { const c = new AudioContext(); const o = c.createOscillator(); o.frequency.value = 440; o.connect(c.destination); o.start(); return c.state; }</script>`;

const it = forgeTest({}, { '/': TONE });

it.beforeAll(async ({ forge: server, pages: served, agentFor, clientBrowser }) => {
  forge = server;
  pages = served;
  browser = clientBrowser;
  agent = await agentFor('default/sound/lead');
  await agent.call('browser_navigate', { url: pages.url });
  expect((await agent.call('browser_evaluate', { function: '() => play()' })).text).toContain('running');
}, 120_000);

it.afterAll(async () => {
  await a?.close();
  await b?.close();
});

const speaker = (c: ClientPage) => c.page.locator('.bar-sound');

describe('the page\'s sound in the web client', () => {
  it('the tab row says the tab plays sound', async () => {
    a = await openClient(browser, forge.info.viewer_url);
    await a.page.locator('#browser-row').click();
    const row = a.page.locator('#browser-panel .tab-row', { hasText: 'Tone' });
    await expect.poll(() => row.innerText(), { timeout: 10_000 }).toContain('plays sound');
  });

  it('a watcher has no speaker mark and is sent no sound', async () => {
    await a.page.locator('#browser-panel .tab-row', { hasText: 'Tone' }).getByRole('button', { name: 'show' }).click();
    await expect.poll(() => a.page.locator('.bar-role').textContent()).toBe('watching · nobody controls the page');
    await a.page.waitForTimeout(800);
    expect(await speaker(a).isVisible()).toBe(false);
    expect(await speaker(a).getAttribute('data-heard')).toBe('false');
  });

  it('the take-control press unlocks playback, and the speaker mark says the page is heard', async () => {
    await a.page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => a.page.locator('.bar-control').textContent()).toBe('release control');
    await expect.poll(() => speaker(a).getAttribute('data-heard'), { timeout: 10_000 }).toBe('true');
    expect(await speaker(a).isVisible()).toBe(true);
    expect(await speaker(a).getAttribute('aria-label')).toBe('mute the page');
    // Drawn, not a glyph: a machine without an emoji font still shows a speaker, not an empty box.
    expect(await speaker(a).locator('svg[data-icon="speaker-playing"]').count()).toBe(1);
    expect(await speaker(a).textContent()).toBe('');
    await expect.poll(() => speaker(a).getAttribute('data-played'), { timeout: 5_000 }).not.toBe('0');
  });

  it('the speaker mark mutes this client only', async () => {
    await speaker(a).click();
    expect(await speaker(a).getAttribute('aria-pressed')).toBe('true');
    expect(await speaker(a).getAttribute('aria-label')).toBe('unmute the page');
    expect(await speaker(a).locator('svg[data-icon="speaker-muted"]').count()).toBe(1);
    await speaker(a).click();
    expect(await speaker(a).getAttribute('aria-pressed')).toBe('false');
  });

  it('another client watching the same tab hears nothing', async () => {
    b = await openClient(browser, forge.info.viewer_url);
    await b.page.locator('#browser-row').click();
    await b.page.locator('#browser-panel .tab-row', { hasText: 'Tone' }).getByRole('button', { name: 'show' }).click();
    await expect.poll(() => b.page.locator('.bar-role').textContent()).toBe('watching · another viewer controls the page');
    await b.page.waitForTimeout(1_000);
    expect(await speaker(b).getAttribute('data-heard')).toBe('false');
    expect(await speaker(b).isVisible()).toBe(false);
  });
});
