/**
 * A page's file chooser answered through the web client: the person controlling the tab clicks
 * the page's file input in the picture, the client's prompt opens this device's picker, and the
 * picked files reach the page. A cancel cancels it, a pick past the limits is a dismiss with its
 * sentence, a chooser on a tab the person is not showing never reaches them, and the agent's
 * next tool result says what the person did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { RunningServer, Agent } from './helpers/server.js';
import { startFileRig, type FilePages, type FileRig } from './helpers/file-pages.js';
import { DESKTOP, launchClientBrowser, picturePoint, showFirstTab, takeControl, PHONE_393, type ClientPage } from './helpers/client-page.js';

let rig: FileRig;
let forge: RunningServer;
let pages: FilePages;
let a: Agent;
let browser: Browser;
let c: ClientPage;

const pageTitle = async (): Promise<string> => (await a.call('browser_evaluate', { function: '() => document.title' })).text;
const prompt = (): ReturnType<ClientPage['page']['locator']> => c.page.locator('.chooser-prompt');

/** The person clicks the page's file input in the picture; the prompt comes up. */
async function pageAsks(): Promise<void> {
  const p = await picturePoint(c.page, 0.25, 0.2);
  await c.page.mouse.click(p.x, p.y);
  await prompt().waitFor({ state: 'visible', timeout: 15_000 });
}

/** The person presses Choose and the platform's picker is answered with `files`. */
async function pick(files: Array<{ name: string; mimeType: string; buffer: Buffer }>): Promise<void> {
  const [chooser] = await Promise.all([c.page.waitForEvent('filechooser'), prompt().getByRole('button', { name: /Choose files?…/ }).click()]);
  await chooser.setFiles(files);
}

beforeAll(async () => {
  rig = await startFileRig('default/upload/lead', '/upload');
  ({ forge, pages, a } = rig);
  browser = await launchClientBrowser();
});

afterAll(async () => {
  await c?.close();
  await browser?.close();
  await rig?.stop();
});

describe('a file upload through the client', () => {
  it('the controller\'s click on the page\'s file input brings up the prompt, with 44 px targets', async () => {
    c = await showFirstTab(browser, forge.info.viewer_url, DESKTOP, 'Upload');
    await takeControl(c);
    expect(await c.page.locator('.bar-role').textContent()).toBe('you control the page');
    await expect.poll(async () => Number(await c.page.locator('.surface-canvas').getAttribute('data-frames-drawn') ?? 0), { timeout: 20_000 }).toBeGreaterThan(0);
    await c.page.waitForTimeout(500);
    await pageAsks();
    expect(await prompt().textContent()).toContain('The page on tab 1 wants files.');
    for (const b of await prompt().getByRole('button').all()) {
      const box = (await b.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.width).toBeGreaterThanOrEqual(44);
    }
    await c.shot('file-chooser-prompt');
  });

  it('the picked files reach the page, and the agent\'s next tool result says so', async () => {
    await pick([
      { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') },
      { name: 'b.png', mimeType: 'image/png', buffer: Buffer.from('PNG!!!') },
    ]);
    await prompt().waitFor({ state: 'hidden' });
    await expect.poll(() => c.page.locator('.bar-notice').textContent()).toBe('Sent a.txt, b.png to the page.');
    const t = await pageTitle();
    expect(t).toContain('Events: the person picked 2 files (a.txt, b.png) for the file chooser on tab 1.');
    expect(t).toContain('files a.txt:5,b.png:6');
  });

  it('Cancel dismisses the page\'s chooser', async () => {
    await pageAsks();
    await prompt().getByRole('button', { name: 'Cancel' }).click();
    await prompt().waitFor({ state: 'hidden' });
    const r = await a.call('browser_file_upload', { paths: [] });
    expect(r.text).toContain('Events: the person dismissed the picker for the file chooser on tab 1.');
    expect(r.text).toMatch(/no file chooser is open on tab 1/);
  });

  it('a picker the person closes without a file dismisses the chooser too', async () => {
    await pageAsks();
    await pick([]);
    await prompt().waitFor({ state: 'hidden' });
    expect(await pageTitle()).toContain('the person dismissed the picker for the file chooser on tab 1');
  });

  it('more than 16 files is a dismiss, and the person reads why', async () => {
    await pageAsks();
    await pick(Array.from({ length: 17 }, (_, i) => ({ name: `f${i}.txt`, mimeType: 'text/plain', buffer: Buffer.from('x') })));
    await prompt().waitFor({ state: 'hidden' });
    const notice = c.page.locator('.bar-notice');
    await expect.poll(() => notice.textContent()).toContain('The page\'s file chooser was dismissed: 17 files is more than the 16 one answer may carry.');
    expect(await notice.getAttribute('data-tone')).toBe('refusal');
    expect(await notice.isVisible()).toBe(true);
    await c.shot('file-chooser-over-limit');
    const t = await pageTitle();
    expect(t).toContain('Events: the file chooser on tab 1 was dismissed: 17 files is more than the 16 one answer may carry.');
    expect(t).not.toContain('f0.txt');
  });

  it('more than 8 MiB is a dismiss, and the bytes never cross', async () => {
    await pageAsks();
    await pick([{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(9 * 1024 * 1024, 7) }]);
    await prompt().waitFor({ state: 'hidden' });
    await expect.poll(() => c.page.locator('.bar-notice').textContent()).toContain('the files come to 9.0 MiB, more than the 8 MiB one answer may carry');
    expect(await pageTitle()).toContain('was dismissed: the files come to 9.0 MiB');
  });

  it('a chooser on a tab the person is not showing never reaches them; the agent answers it', async () => {
    await a.call('browser_tabs', { action: 'new', url: `${pages.origin}/upload` });
    await a.call('browser_click', { ref: 'css=#f' });
    await c.page.waitForTimeout(1000);
    expect(await prompt().isVisible()).toBe(false);
    const r = await a.call('browser_file_upload', { paths: [] });
    expect(r.isError).toBe(false);
  });

  it('at a phone\'s width the prompt fits on screen with 44 px targets', async () => {
    await a.call('browser_tabs', { action: 'close' });
    const phone = await showFirstTab(browser, forge.info.viewer_url, PHONE_393, 'Upload');
    try {
      await takeControl(phone);
      expect(await phone.page.locator('.bar-role').textContent()).toBe('you control the page');
      await a.call('browser_click', { ref: 'css=#f' });
      const p = phone.page.locator('.chooser-prompt');
      await p.waitFor({ state: 'visible' });
      const box = (await p.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE_393.width);
      for (const b of await p.getByRole('button').all()) expect((await b.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await phone.shot('file-chooser-prompt-393');
      await p.getByRole('button', { name: 'Cancel' }).click();
      await p.waitFor({ state: 'hidden' });
    } finally {
      await phone.close();
    }
  });
});
