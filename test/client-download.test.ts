/**
 * A page's download through the web client: the person controlling the tab gets it in the tray,
 * and its Save link downloads the page's own bytes; a download past 32 MiB is refused in words
 * there; a drop from the profile's backlog is announced with its count; and the agent's next
 * tool result says what became of each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { RunningServer, Agent } from './helpers/server.js';
import { downloadBytes, startFileRig, type FileRig } from './helpers/file-pages.js';
import { DESKTOP, launchClientBrowser, showFirstTab, takeControl, type ClientPage } from './helpers/client-page.js';

let rig: FileRig;
let forge: RunningServer;
let a: Agent;
let browser: Browser;
let c: ClientPage;
let said = '';

const tray = (): ReturnType<ClientPage['page']['locator']> => c.page.locator('.downloads-tray');

beforeAll(async () => {
  rig = await startFileRig('default/fetch/lead', '/downloads');
  ({ forge, a } = rig);
  browser = await launchClientBrowser();
});

afterAll(async () => {
  await c?.close();
  await browser?.close();
  await rig?.stop();
});

describe('a download through the client', () => {
  it('the controller\'s tray offers it, and Save downloads the page\'s own bytes', async () => {
    c = await showFirstTab(browser, forge.info.viewer_url, DESKTOP, 'Downloads');
    await takeControl(c);
    expect(await c.page.locator('.bar-role').textContent()).toBe('you control the page');
    said += (await a.call('browser_click', { ref: 'css=#small' })).text;
    const entry = tray().locator('.tray-entry', { hasText: 'report.csv' });
    await entry.waitFor();
    expect(await entry.textContent()).toContain('Download from tab 1');
    expect(await entry.textContent()).toContain('report.csv · 12 KB');
    const save = entry.getByRole('link', { name: 'Save' });
    expect((await save.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await c.shot('download-offered');
    const [download] = await Promise.all([c.page.waitForEvent('download'), save.click()]);
    expect(download.suggestedFilename()).toBe('report.csv');
    const path = await download.path();
    expect(readFileSync(path).equals(downloadBytes('report.csv', 12345))).toBe(true);
  });

  it('the agent\'s next tool result says it was offered to the person', async () => {
    said += (await a.call('browser_snapshot')).text;
    expect(said).toContain('Events: a download finished on tab 1: report.csv (12 KB), offered to the person.');
  });

  it('a download past 32 MiB is refused in words in the tray', async () => {
    said = (await a.call('browser_click', { ref: 'css=#big' })).text;
    const entry = tray().locator('.tray-entry', { hasText: 'huge.bin' });
    await entry.waitFor({ timeout: 60_000 });
    expect(await entry.getAttribute('data-tone')).toBe('refusal');
    expect(await entry.textContent()).toContain('The download huge.bin is 33.0 MiB, past the 32 MiB a client is handed; it was not kept.');
    expect(await entry.getByRole('link').count()).toBe(0);
    said += (await a.call('browser_snapshot')).text;
    expect(said).toContain('a download on tab 1 was refused: huge.bin is 33.0 MiB, past the 32 MiB a client is handed');
  });

  it('past the backlog the oldest go; one already saved is no loss, and the tray says one was lost', async () => {
    // report.csv was saved above: dropping it loses nothing. file1.txt was never saved.
    // file1's link is read before the downloads that push it out of the backlog start: once they
    // finish, its entry leaves the tray, and on a busy machine that can come before a later read.
    await a.call('browser_click', { ref: 'css=#file1' });
    await tray().locator('.tray-entry', { hasText: 'file1.txt' }).getByRole('link', { name: 'Save' }).waitFor();
    const href = await tray().locator('.tray-entry', { hasText: 'file1.txt' }).getByRole('link', { name: 'Save' }).getAttribute('href');
    for (let i = 2; i <= 5; i++) await a.call('browser_click', { ref: `css=#file${i}` });
    const lost = tray().locator('.tray-entry', { hasText: 'A download was lost' });
    await lost.waitFor();
    expect(await lost.textContent()).toContain('One finished download was dropped: profile default/default\'s backlog holds at most 4 at a time.');
    await c.shot('download-lost');
    // The tray never covers the bar: take / release control stays clickable.
    const bar = (await c.page.locator('.bar').boundingBox())!;
    const top = (await tray().boundingBox())!;
    expect(top.y).toBeGreaterThanOrEqual(bar.y + bar.height);
    // The dropped one leaves the tray, and its link no longer serves it.
    await expect.poll(() => tray().locator('.tray-entry', { hasText: 'file1.txt' }).count()).toBe(0);
    expect((await fetch(`http://127.0.0.1:${forge.info.port}${href!}`)).status).toBe(410);
    const r = await a.call('browser_snapshot');
    expect(r.text).toContain('1 finished download was dropped from profile default/default\'s backlog, which holds at most 4 (file1.txt)');
    expect(await tray().locator('.tray-entry', { hasText: 'downloads were lost' }).count()).toBe(0);
  });

  it('a Save whose file is no longer kept says so on its entry', async () => {
    const dir = join(forge.stateDir, 'profiles', 'default', 'default-downloads');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('-file2.txt'))) rmSync(join(dir, f));
    const entry = tray().locator('.tray-entry', { hasText: 'file2.txt' });
    await entry.getByRole('link', { name: 'Save' }).click();
    await expect.poll(() => entry.locator('.tray-words').textContent()).toBe('file2.txt could not be saved: file2.txt is no longer kept on the server.');
    expect(await entry.getAttribute('data-tone')).toBe('refusal');
  });
});
