/**
 * The client's pages carry a content policy, no framing, no sniffing, no Referer and no caching,
 * and the real web client works whole under that policy in headless Chromium: it loads, connects
 * its socket, draws an agent's tab, raises the seat's terminal, and the bare terminal page runs,
 * with not one policy violation reported by the page.
 */
import { describe, expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Agent, RunningServer } from './helpers/server.js';
import { picturePoint } from './helpers/client-page.js';
import { pageScreen } from './helpers/term-screen.js';
import { forgeTest, type TestPages } from './fixtures.js';

const SEAT = 'default/csp/lead';
let forge: RunningServer;
let pages: TestPages;
let browser: Browser;
let agent: Agent;

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' }, { '/': '<title>Policy</title><h1 style="font-size:64px">under the policy</h1>' });

it.beforeAll(async ({ forge: f, pages: p, clientBrowser, agentFor }) => {
  forge = f;
  pages = p;
  browser = clientBrowser;
  agent = await agentFor(SEAT);
});

/** A page that keeps every policy violation and every console line naming the policy. */
async function watchedPage(): Promise<{ page: Page; violations: () => Promise<string[]> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => { seen.push(`${e.violatedDirective} ${e.blockedURI}`); });
  });
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) consoleLines.push(m.text()); });
  const violations = async (): Promise<string[]> => [...consoleLines, ...await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)];
  return { page, violations };
}

describe('the client\'s pages are served under a policy the real client works under', () => {
  it('the viewer, the hand-off page and the terminal page carry the policy and the headers that keep a link\'s token in its page', async () => {
    for (const path of ['/', '/handoff/x', '/terminal.html']) {
      const r = await fetch(`http://127.0.0.1:${forge.info.port}${path}`);
      expect(r.status).toBe(200);
      const csp = r.headers.get('content-security-policy') ?? '';
      for (const d of ["script-src 'self'", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) expect(csp).toContain(d);
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('the client loads, connects, draws a tab and raises the terminal with no policy violation', async () => {
    await agent.call('browser_navigate', { url: pages.url });
    await agent.call('terminal__run', { command: 'echo policy-holds' });
    const { page, violations } = await watchedPage();
    const doc = await page.goto(`${forge.info.viewer_url}&seat=${SEAT}`);
    expect(doc?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.link-state[data-state="open"]').waitFor();
    await page.locator('#browser-row').click();
    await page.locator('#browser-panel .tab-row').first().getByRole('button', { name: 'show' }).click();
    await page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    // A drawn picture: the frame worker decoded a frame onto the canvas.
    await picturePoint(page, 0.5, 0.5);
    await page.getByRole('button', { name: 'back to chat' }).click();
    await page.locator('#terminal-row').click();
    await expect.poll(() => page.locator('#takeover-title').textContent(), { timeout: 15_000 }).toMatch(/^terminal \d+ · bash · \//);
    await expect.poll(() => pageScreen(page), { timeout: 15_000 }).toContain('policy-holds');
    expect(await violations()).toEqual([]);
    await page.context().close();
  });

  it('the bare terminal page runs with no policy violation', async () => {
    const { page, violations } = await watchedPage();
    const doc = await page.goto(`http://127.0.0.1:${forge.info.port}/terminal.html?token=${forge.info.viewer_token}&seat=${SEAT}`);
    expect(doc?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => pageScreen(page), { timeout: 15_000 }).toContain('policy-holds');
    expect(await violations()).toEqual([]);
    await page.context().close();
  });
});
