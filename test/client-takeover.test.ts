/**
 * The web client against a real forge: a real agent opens tabs over MCP, and the served page in
 * a real headless Chromium shows them in the strip and the takeover, and drives them.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openClient, picturePoint, type ClientPage } from './helpers/client-page.js';

let forge: RunningServer;
let pages: TestPages;
let lead: Agent;
let worker: Agent;
let browser: Browser;
let a: ClientPage;
let b: ClientPage;

/** A big button that only a trusted press counts, and a box that moves every frame. */
const BOARD = `<title>Board</title><style>body{margin:0;background:#fff}
#go{position:fixed;left:0;top:0;width:50vw;height:50vh;font-size:32px}
#box{position:fixed;left:0;bottom:0;width:80px;height:80px;background:#c33}
#field{position:fixed;left:55vw;top:10vh;width:40vw;height:10vh;font-size:24px}</style>
<button id="go" onclick="if (event.isTrusted) document.title = 'pressed ' + (++window.n)">Go</button><div id="box"></div>
<input id="field" onkeydown="if (event.key === 'Enter' && event.isTrusted) this.dataset.entered = this.value">
<script>window.n = 0; let x = 0; setInterval(() => { x = (x + 9) % 900; document.getElementById('box').style.left = x + 'px'; }, 16);</script>`;

const title = async (): Promise<string> => (await lead.call('browser_evaluate', { function: '() => document.title' })).text;

const it = forgeTest({}, { '/': BOARD, '/second': '<title>Second</title><p style="font-size:40px">second page</p>', '/other': '<title>Other</title><h1>the worker\'s page</h1>' });

it.beforeAll(async ({ forge: f, pages: p, clientBrowser, agentFor }) => {
  forge = f;
  pages = p;
  browser = clientBrowser;
  lead = await agentFor('default/view/lead');
  worker = await agentFor('default/view/worker');
});

it.afterAll(async () => {
  await a?.close();
  await b?.close();
});

describe('the strip and the takeover', () => {
  it('the browser row appears with the first tab, and its count follows the tabs', async () => {
    a = await openClient(browser, forge.info.viewer_url);
    // A browser nothing has invoked is no row at all.
    expect(await a.page.locator('#browser-row').count()).toBe(0);
    await lead.call('browser_navigate', { url: pages.url });
    const row = a.page.locator('#browser-row');
    await row.waitFor();
    await expect.poll(() => row.locator('.row-count').textContent()).toBe('1');
    expect(await row.getAttribute('title')).toContain('profile default/default');
    await worker.call('browser_navigate', { url: `${pages.origin}/other` });
    await expect.poll(() => row.locator('.row-count').textContent()).toBe('2');
    await row.click();
    const rows = a.page.locator('#browser-panel .tab-row');
    await expect.poll(() => rows.count()).toBe(2);
    const text = await a.page.locator('#browser-panel').innerText();
    expect(text).toContain('Board');
    expect(text).toContain('default/view/lead');
    expect(text).toContain('default/view/worker');
    expect(text).toMatch(/in use|idle/);
    await a.shot('strip-panel');
  });

  it('show raises the takeover with the profile\'s title, and the viewer starts as a watcher', async () => {
    await a.page.locator('#browser-panel .tab-row', { hasText: 'Board' }).getByRole('button', { name: 'show' }).click();
    const dialog = a.page.getByRole('dialog', { name: 'the browser · default/default' });
    await dialog.waitFor();
    await expect.poll(() => a.page.locator('.bar-role').textContent()).toBe('watching · nobody controls the page');
    expect(await a.page.locator('.bar-control').textContent()).toBe('take control');
    expect(await a.page.locator('.picker-button').textContent()).toContain('tab 1');
    await a.shot('takeover-watching');
  });

  it('frames arrive and change while the page animates', async () => {
    const canvas = a.page.locator('.surface-canvas');
    await expect.poll(async () => Number(await canvas.getAttribute('data-frames-drawn') ?? 0), { timeout: 20_000 }).toBeGreaterThan(5);
    const first = await canvas.screenshot();
    await a.page.waitForTimeout(400);
    const second = await canvas.screenshot();
    expect(Buffer.compare(first, second)).not.toBe(0);
    expect(await a.page.locator('.surface-state').isVisible()).toBe(false);
  });

  it('a watcher\'s arrows are disabled and its click on the picture does nothing', async () => {
    expect(await a.page.getByRole('button', { name: 'back', exact: true }).isDisabled()).toBe(true);
    expect(await a.page.getByRole('button', { name: 'forward', exact: true }).isDisabled()).toBe(true);
    const p = await picturePoint(a.page, 0.25, 0.25);
    await a.page.mouse.click(p.x, p.y);
    await a.page.waitForTimeout(500);
    expect(await title()).toContain('Board');
    expect(await a.page.locator('.bar-notice').textContent()).toContain('take control');
  });

  it('a controller\'s click on the picture presses the real button in the agent\'s tab', async () => {
    await a.page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => a.page.locator('.bar-control').textContent()).toBe('release control');
    expect(await a.page.locator('.bar-role').textContent()).toBe('you control the page');
    // The page is laid out at this surface's shape: a fresh keyframe at the box's size.
    await a.page.waitForTimeout(500);
    const p = await picturePoint(a.page, 0.25, 0.25);
    await a.page.mouse.click(p.x, p.y);
    await expect.poll(title, { timeout: 10_000 }).toContain('pressed 1');
    await a.shot('takeover-controller');
  });

  it('the controller\'s typing reaches the page: printable keys as text, named keys as keys, a paste as text', async () => {
    const p = await picturePoint(a.page, 0.75, 0.15);
    await a.page.mouse.click(p.x, p.y);
    await a.page.keyboard.type('hello wörld');
    await a.page.keyboard.press('Backspace');
    await a.page.evaluate(() => {
      const data = new DataTransfer();
      data.setData('text/plain', ' pasted');
      document.querySelector('.key-sink')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await a.page.keyboard.press('Enter');
    const field = async (): Promise<string> => (await lead.call('browser_evaluate', { function: '() => JSON.stringify([field.value, field.dataset.entered ?? null])' })).text;
    await expect.poll(field, { timeout: 10_000 }).toContain('[\\"hello wörl pasted\\",\\"hello wörl pasted\\"]');
  });

  it('the pane chord moves the keys to the bar, where Tab wraps, and back to the page', async () => {
    expect(await a.page.locator('.bar-hint').isVisible()).toBe(true);
    await a.page.keyboard.press('Control+Alt+ArrowDown');
    expect(await a.page.evaluate(() => document.activeElement?.className)).toBe('bar-back');
    expect(await a.page.locator('.bar-hint').isVisible()).toBe(false);
    await a.page.keyboard.press('Shift+Tab');
    expect(await a.page.evaluate(() => document.activeElement?.className)).toBe('bar-control');
    await a.page.keyboard.press('Tab');
    expect(await a.page.evaluate(() => document.activeElement?.className)).toBe('bar-back');
    await a.page.keyboard.press('Control+Alt+ArrowUp');
    expect(await a.page.evaluate(() => document.activeElement?.className)).toBe('key-sink');
  });

  it('an IME composition reaches the page as its committed text', async () => {
    const cdp = await a.context.newCDPSession(a.page);
    await cdp.send('Input.imeSetComposition', { text: 'にほ', selectionStart: 2, selectionEnd: 2 });
    await cdp.send('Input.insertText', { text: '日本' });
    const value = async (): Promise<string> => (await lead.call('browser_evaluate', { function: '() => field.value' })).text;
    await expect.poll(value, { timeout: 10_000 }).toContain('pasted日本');
    await cdp.detach();
  });

  it('a resized window lays the controller\'s page out at the new shape', async () => {
    const canvas = a.page.locator('.surface-canvas');
    await a.page.setViewportSize({ width: 1000, height: 640 });
    const box = (await canvas.boundingBox())!;
    await expect.poll(async () => (await canvas.getAttribute('data-frame')), { timeout: 15_000 }).toBe(`${Math.round(box.width)}x${Math.round(box.height)}`);
    await a.shot('takeover-resized');
    await a.page.setViewportSize({ width: 1280, height: 800 });
  });

  it('taking control on a second viewer moves the role, and both bars say so', async () => {
    b = await openClient(browser, forge.info.viewer_url);
    await b.page.locator('#browser-row').click();
    await b.page.locator('#browser-panel .tab-row', { hasText: 'pressed' }).getByRole('button', { name: 'show' }).click();
    await expect.poll(() => b.page.locator('.bar-role').textContent()).toBe('watching · another viewer controls the page');
    await b.page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => b.page.locator('.bar-control').textContent()).toBe('release control');
    await expect.poll(() => a.page.locator('.bar-control').textContent()).toBe('take control');
    expect(await a.page.locator('.bar-role').textContent()).toBe('watching · another viewer controls the page');
    // A's click, now a watcher's, does nothing.
    const before = await title();
    const p = await picturePoint(a.page, 0.25, 0.25);
    await a.page.mouse.click(p.x, p.y);
    await a.page.waitForTimeout(500);
    expect(await title()).toBe(before);
    await b.page.getByRole('button', { name: 'release control' }).click();
    await expect.poll(() => a.page.locator('.bar-role').textContent()).toBe('watching · nobody controls the page');
  });

  it('the arrows follow the page\'s history for the controller and stay disabled for a watcher', async () => {
    await lead.call('browser_navigate', { url: `${pages.origin}/second` });
    await a.page.getByRole('button', { name: 'take control' }).click();
    const back = a.page.getByRole('button', { name: 'back', exact: true });
    await expect.poll(() => back.isDisabled()).toBe(false);
    expect(await a.page.getByRole('button', { name: 'forward', exact: true }).isDisabled()).toBe(true);
    expect(await b.page.getByRole('button', { name: 'back', exact: true }).isDisabled()).toBe(true);
    expect(await title()).toContain('Second');
    await back.click();
    await expect.poll(title, { timeout: 10_000 }).not.toContain('Second');
    await expect.poll(() => a.page.getByRole('button', { name: 'forward', exact: true }).isDisabled()).toBe(false);
  });

  it('the tab picker lists the profile\'s tabs and moves this surface to another', async () => {
    await a.page.locator('.picker-button').click();
    const items = a.page.getByRole('menuitemradio');
    await expect.poll(() => items.count()).toBe(2);
    await a.shot('takeover-picker');
    await items.filter({ hasText: 'Other' }).click();
    await expect.poll(() => a.page.locator('.picker-button').textContent()).toContain('tab 2');
    // Another tab: this viewer is a watcher there until it takes the role.
    await expect.poll(() => a.page.locator('.bar-role').textContent()).toBe('watching · nobody controls the page');
    expect(await a.page.getByRole('dialog').getAttribute('aria-labelledby')).toBe('takeover-title');
  });

  it('back to chat lowers the takeover, and so does the browser\'s own Back', async () => {
    await a.page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => a.page.getByRole('dialog').count()).toBe(0);
    expect(await a.page.locator('#chat').isVisible()).toBe(true);
    // The keys come back to the strip's row, not to nowhere.
    expect(await a.page.evaluate(() => document.activeElement?.id)).toBe('browser-row');
    await b.page.goBack();
    await expect.poll(() => b.page.getByRole('dialog').count()).toBe(0);
    expect(b.page.url()).toContain('token=');
  });

  it('a tab that closes under the takeover says so in the server\'s words, and the row counts it out', async () => {
    await b.page.locator('#browser-row').click();
    await b.page.locator('#browser-panel .tab-row', { hasText: 'Other' }).getByRole('button', { name: 'show' }).click();
    await b.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    await worker.call('browser_close');
    await b.page.locator('.surface[data-phase="failed"]').waitFor({ timeout: 15_000 });
    expect(await b.page.locator('.surface-state').textContent()).toMatch(/tab 2 is not open/);
    expect(await b.page.getByRole('button', { name: 'try again' }).isVisible()).toBe(true);
    expect(await b.page.locator('.bar-control').isVisible()).toBe(false);
    await b.shot('takeover-gone');
    await expect.poll(() => b.page.locator('#browser-row .row-count').textContent()).toBe('1');
  });

  it('a connection that drops says so over the picture while it tries again', async () => {
    await b.page.locator('.picker-button').click();
    await b.page.getByRole('menuitemradio').first().click();
    await b.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    await forge.stop(); // the server is gone for good: this stays the file's last test
    await b.page.locator('.link-state[data-state="down"]').waitFor();
    await expect.poll(() => b.page.locator('.surface-state').textContent()).toBe('the connection is down - reconnecting…');
    await b.shot('takeover-connection-down');
  });
});
