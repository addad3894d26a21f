/**
 * A long-lived tab's history does not pile up in forge's heap: with forge's bound in force,
 * Playwright lets its records of a tab's old navigations go once a kind passes the bound (about
 * 19 KB each were kept for the tab's whole life before), and keeps the recent ones usable. This
 * holds the Playwright forge ships with to the hook the bound needs: one without it fails here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Response } from 'playwright-core';
import { boundPlaywrightRecords, PLAYWRIGHT_RECORDS_PER_KIND_MAX } from '../src/main/browser/playwright-records.js';
import { launchClientBrowser } from './helpers/client-page.js';

let server: Server;
let browser: Browser;

beforeAll(async () => {
  server = createServer((q, r) => { r.setHeader('content-type', 'text/html'); r.end(`<title>${q.url}</title>`); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  boundPlaywrightRecords();
  browser = await launchClientBrowser();
});

afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe('Playwright\'s records of a tab\'s navigations', () => {
  it('are let go past forge\'s bound, the oldest first, and the newest stay readable', { timeout: 300_000 }, async () => {
    const page = await browser.newPage();
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const kept: Response[] = [];
    const navigations = Math.ceil(PLAYWRIGHT_RECORDS_PER_KIND_MAX * 1.2);
    for (let i = 0; i < navigations; i++) {
      const r = await page.goto(`${base}/${i}`, { waitUntil: 'commit' });
      if (i === 0 || i === navigations - 1) kept.push(r!);
    }
    const [first, last] = kept;
    await expect(first!.body(), 'the first navigation\'s record was let go').rejects.toThrow(/collected to prevent unbounded heap growth/);
    expect((await last!.body()).toString()).toBe(`<title>/${navigations - 1}</title>`);
    await page.close();
  });
});
