/**
 * A person's click lands even when the server's pushes change what they pressed: the tab list is
 * pushed whenever an agent opens a tab, a title changes or a dialog waits, the hand-offs whenever
 * one is parked or answered, the terminal's state whenever a command starts or ends, and the
 * strip, the bar's picker and the home's hand-off and seat cards redraw with them. A redraw
 * between the press and the release must not lose the click (the browser only clicks when both
 * land on the same element). The changes are real: an agent opens a tab, parks a hand-off or runs
 * a command between the person's press and release.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useClientRig } from './helpers/client-rig.js';
import { openClient, type ClientPage } from './helpers/client-page.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { TERM_STATE } from '../src/shared/terminal.js';

const SEAT = 'default/strip/lead';

/** Presses at the centre of `selector`, lets `meanwhile` change the strip, then releases. */
async function pressAcross(page: Page, selector: string, meanwhile: () => Promise<void>): Promise<void> {
  // As a person would, scroll it into view first: a home with many tabs is taller than the window.
  await page.locator(selector).scrollIntoViewIfNeeded();
  const box = (await page.locator(selector).boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await meanwhile();
  await page.mouse.up();
}

describe('clicks while the server\'s pushes redraw the client', () => {
  const rig = useClientRig(SEAT, '[terminal]\nshell = "/bin/bash"\n');
  let pages: PageServer;
  let client: ClientPage;
  const count = (): Promise<string | null> => client.page.locator('#browser-row .row-count').textContent();
  const open = async (path: string): Promise<void> => {
    await rig.agent.callTool({ name: 'browser_tabs', arguments: { action: 'new', url: `${pages.url}${path}` } });
  };

  beforeAll(async () => {
    pages = await servePages({ '/': '<title>First</title>first', '/b': '<title>Second</title>second', '/c': '<title>Third</title>third' });
    await rig.agent.callTool({ name: 'browser_navigate', arguments: { url: pages.url } });
    client = await openClient(rig.browser, rig.server.info.viewer_url);
    await client.page.locator('#browser-row .row-count').filter({ hasText: '1' }).waitFor({ timeout: 15_000 });
  });
  afterAll(async () => { await client?.close(); await pages?.close(); });

  it('a click on the browser row opens the panel though a tab opened between press and release', async () => {
    await pressAcross(client.page, '#browser-row', async () => {
      await open('b');
      await expect.poll(count, { timeout: 15_000 }).toBe('2');
    });
    await expect.poll(() => client.page.locator('#browser-panel').count(), { timeout: 5_000 }).toBe(1);
    expect(await client.page.locator('#browser-row').getAttribute('aria-expanded')).toBe('true');
  });

  it('a click on a tab\'s show in the panel shows it though a tab opened between press and release', async () => {
    const first = client.page.locator('#browser-panel .tab-row').filter({ hasText: 'First' });
    await pressAcross(client.page, '#browser-panel .tab-row:has-text("First") .tab-action', async () => {
      await open('c');
      await expect.poll(count, { timeout: 15_000 }).toBe('3');
    });
    await expect.poll(() => client.page.locator('.surface[data-phase="live"]').count(), { timeout: 20_000 }).toBe(1);
    expect(await first.count()).toBeLessThanOrEqual(1);
  });

  it('a click on a tab in the bar\'s picker shows it though a tab opened between press and release', async () => {
    await client.page.locator('.picker-button').click();
    await pressAcross(client.page, '.picker-item:has-text("Second")', async () => {
      await open('');
      await expect.poll(count, { timeout: 15_000 }).toBe('4');
    });
    await expect.poll(() => client.page.locator('.picker-button').textContent(), { timeout: 20_000 }).toMatch(/^tab 2\b/);
  });

  it('a click on a hand-off card\'s Open browser opens its page though another hand-off arrived between press and release', async () => {
    await client.page.getByRole('button', { name: 'back to chat' }).click();
    const list = await rig.agent.callTool({ name: 'browser_tabs', arguments: { action: 'list' } });
    const text = (list.content as Array<{ text: string }>)[0]!.text;
    const ids = [...text.matchAll(/page (p-[0-9a-f]{8})/g)].map((m) => m[1]!);
    // Parked until the person answers; the rig's agent closing withdraws them.
    const ask = (pageId: string, message: string): void => {
      void rig.agent.callTool({ name: 'browser_hand_off', arguments: { page_id: pageId, message } }, undefined, { timeout: 120_000 }).catch(() => undefined);
    };
    ask(ids[0]!, 'the first ask');
    const cards = client.page.locator('.handoff-card');
    await cards.first().waitFor({ timeout: 15_000 });
    await pressAcross(client.page, '.handoff-card:has-text("the first ask") .card-open-browser', async () => {
      ask(ids[2]!, 'the second ask');
      await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(2);
    });
    await expect.poll(() => client.page.locator('.ask-words').textContent(), { timeout: 20_000 }).toBe('the first ask');
  });

  it('a click on a seat card\'s terminal show raises the terminal though a command started between press and release', async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo ready' } });
    const c = await openClient(rig.browser, rig.server.info.viewer_url);
    try {
      const line = c.page.locator(`.seat-card[data-seat="${SEAT}"] .seat-terminal`);
      await expect.poll(() => line.getAttribute('data-state'), { timeout: 15_000 }).toBe('idle');
      let run: Promise<unknown> = Promise.resolve();
      await pressAcross(c.page, `.seat-card[data-seat="${SEAT}"] .term-action`, async () => {
        run = rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'sleep 2' } });
        await expect.poll(() => line.getAttribute('data-state'), { timeout: 15_000 }).toBe('a command is running');
      });
      const stateLine = (): Promise<string | null> => c.page.locator('.takeover[data-surface="terminal"] .term-state').textContent();
      await expect.poll(stateLine, { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
      await run;
    } finally {
      await c.close();
    }
  });

  it('a click on the terminal row raises the terminal though a command started between press and release', async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo ready' } });
    const url = new URL(rig.server.info.viewer_url);
    url.searchParams.set('seat', SEAT);
    const c = await openClient(rig.browser, url.toString());
    try {
      const rowState = (): Promise<string | null> => c.page.locator('#terminal-row .row-state').textContent();
      await c.page.locator('#terminal-row').waitFor({ timeout: 15_000 });
      let run: Promise<unknown> = Promise.resolve();
      await pressAcross(c.page, '#terminal-row', async () => {
        run = rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'sleep 2' } });
        await expect.poll(rowState, { timeout: 15_000 }).toBe('a command is running');
      });
      const stateLine = (): Promise<string | null> => c.page.locator('.takeover[data-surface="terminal"] .term-state').textContent();
      await expect.poll(stateLine, { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
      await run;
    } finally {
      await c.close();
    }
  });
});
