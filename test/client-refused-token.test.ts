/**
 * A page whose token the server refuses (a link from before the server restarted, a revoked or
 * expired token) says so in the server's words and stops, instead of showing "reconnecting" for
 * ever: the token goes in the socket's first message, whose refusal the page can read, not in the
 * URL, whose refusal is an HTTP 401 a browser's WebSocket never shows. In real headless Chromium.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';

const it = forgeTest();

/** A person token of the right shape that this server never made: what a link from its last run holds. */
const OLD_RUN_TOKEN = 'fp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('a page whose token the server refuses', () => {
  it('the home with a stale link says the link is refused and how to get a new one, and stops trying', async ({ forge, clientBrowser }) => {
    const page = await clientBrowser.newPage();
    try {
      const sockets: string[] = [];
      page.on('websocket', (ws) => sockets.push(ws.url()));
      await page.goto(`http://127.0.0.1:${forge.info.port}/?token=${OLD_RUN_TOKEN}`);
      const state = page.locator('.link-state');
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('ended');
      expect(await state.textContent()).toBe('the viewer token is wrong, expired or revoked; after a restart, open the new viewer link the server printed');
      // Ended: no socket after the refused one, however long the page stays open.
      const tried = sockets.length;
      await page.waitForTimeout(3_000);
      expect(sockets.length).toBe(tried);
      expect(sockets.every((u) => !u.includes('token='))).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('the terminal page with a stale link says the same', async ({ forge, clientBrowser }) => {
    const page = await clientBrowser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${forge.info.port}/terminal.html?token=${OLD_RUN_TOKEN}&seat=default/proj/lead`);
      await expect.poll(() => page.textContent('body'), { timeout: 15_000 }).toContain('the viewer token is wrong, expired or revoked');
    } finally {
      await page.close();
    }
  });

  it('the printed link still opens the home, through the same first message', async ({ forge, clientBrowser }) => {
    const page = await clientBrowser.newPage();
    try {
      await page.goto(forge.info.viewer_url);
      await page.locator('.link-state[data-state="open"]').waitFor({ timeout: 15_000 });
      expect(await page.locator('.link-state').textContent()).toBe('connected');
    } finally {
      await page.close();
    }
  });
});
