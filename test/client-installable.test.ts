/**
 * The home is an installable web app: index.html links a manifest that is served with its type
 * and parses, every icon it names is served as an image, and the home with its seats' cards, the
 * manifest and the icons load under the page's policy with not one violation.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Agent, RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

const SEAT = 'default/app/lead';
let forge: RunningServer;
let browser: Browser;
let agent: Agent;

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' });

it.beforeAll(async ({ forge: f, clientBrowser, agentFor }) => {
  forge = f;
  browser = clientBrowser;
  agent = await agentFor(SEAT);
  await agent.call('terminal__run', { command: 'echo app-ready' });
});


interface Manifest { name: string; display: string; icons: Array<{ src: string; sizes: string; type: string }> }

describe('the home installs as a web app', () => {
  it('the manifest is served with its type, parses, and names icons that are served as images', async () => {
    const base = `http://127.0.0.1:${forge.info.port}`;
    const r = await fetch(`${base}/manifest.webmanifest`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/manifest+json');
    const m = JSON.parse(await r.text()) as Manifest;
    expect(m.name).toBe('forge');
    expect(m.display).toBe('standalone');
    expect(m.icons.length).toBeGreaterThan(0);
    for (const icon of m.icons) {
      const i = await fetch(new URL(icon.src, `${base}/manifest.webmanifest`));
      expect(i.status).toBe(200);
      expect(i.headers.get('content-type')).toBe(icon.type);
      expect((await i.text()).startsWith('<svg')).toBe(true);
    }
  });

  it('the page links the manifest, and the home loads it and its icon with no policy violation', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __violations: string[] }).__violations = seen;
      document.addEventListener('securitypolicyviolation', (e) => { seen.push(`${e.violatedDirective} ${e.blockedURI}`); });
    });
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (m) => { if (/Content Security Policy|Refused to|Manifest/i.test(m.text())) consoleLines.push(m.text()); });
    await page.goto(forge.info.viewer_url);
    await page.locator(`.seat-card[data-seat="${SEAT}"] .seat-terminal[data-state="idle"]`).waitFor({ timeout: 15_000 });
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/manifest.webmanifest');
    // The page itself fetches its manifest and icon under its own policy.
    const loaded = await page.evaluate(async (h) => {
      const m = await (await fetch(h)).json() as Manifest;
      const icon = new Image();
      icon.src = m.icons[0]!.src;
      await icon.decode();
      return { name: m.name, width: icon.naturalWidth };
    }, href!);
    expect(loaded.name).toBe('forge');
    expect(loaded.width).toBeGreaterThan(0);
    const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
    expect([...consoleLines, ...violations]).toEqual([]);
    await context.close();
  });
});
