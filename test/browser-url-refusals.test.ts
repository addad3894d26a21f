/**
 * The shared browser does not open the server's disk, the browser's own pages or the host's
 * DevTools endpoint for an agent: every agent path that names a URL refuses them in words and no
 * tab shows them; a page cannot reach them by its own navigation either. With
 * `[agent] allow_file_urls = true` a file: URL opens.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostDoorPort, hostPageClient, hostTargets } from './helpers/host-devtools.js';
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';

let forge: RunningServer;
let pages: TestPages;
let a: Agent;
let cdpPort = 0;

const FILE_REFUSAL = 'forge does not open file: URLs; set [agent] allow_file_urls = true in forge.toml to allow them';

const it = forgeTest({}, { '/': '<title>Home</title><p>home page</p>' });
/** A server of its own that opens file: URLs. */
const allowFiles = forgeTest({ toml: '[agent]\nallow_file_urls = true\n' });

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  a = await agentFor('default/urls/lead');
  await a.call('browser_navigate', { url: pages.url });
  cdpPort = hostDoorPort(forge.stateDir);
});

/** Every page target's address, read beside forge on the host's own port (the test's check, not an agent's path). */
async function tabUrls(): Promise<string[]> {
  return (await hostTargets(forge.stateDir)).filter((t) => t.type === 'page').map((t) => t.url);
}

describe('refused addresses', () => {
  const cases: Array<[string, () => string, RegExp | string]> = [
    ['file:///etc/passwd', () => 'file:///etc/passwd', FILE_REFUSAL],
    ['view-source:file:///etc/passwd', () => 'view-source:file:///etc/passwd', /^forge does not open view-source: URLs/],
    ['chrome://settings', () => 'chrome://settings', /^forge does not open chrome: URLs: the browser's own pages and tools/],
    ['chrome://inspect', () => 'chrome://inspect', /^forge does not open chrome: URLs/],
    ['devtools://devtools/bundled/inspector.html', () => 'devtools://devtools/bundled/inspector.html', /^forge does not open devtools: URLs/],
    ['about:settings', () => 'about:settings', /^forge does not open about:settings/],
    ['javascript:alert(1)', () => 'javascript:alert(1)', /^forge does not open javascript: URLs: they are scripts, not addresses; run a script on the page with browser_evaluate$/],
    ['the host\'s CDP endpoint', () => `http://127.0.0.1:${cdpPort}/json/version`, /^forge does not open the browser host's own DevTools endpoint \(port \d+\): it is forge's alone$/],
    ['the CDP endpoint by another name', () => `http://localhost:${cdpPort}/json/list`, /^forge does not open the browser host's own DevTools endpoint/],
  ];
  for (const [name, url, sentence] of cases) {
    it(`${name} is refused by browser_navigate and browser_tabs new in words, and no tab shows it`, async () => {
      const nav = await a.call('browser_navigate', { url: url() });
      expect(nav.isError).toBe(true);
      if (typeof sentence === 'string') expect(nav.text).toBe(sentence); else expect(nav.text).toMatch(sentence);

      const before = (await a.call('browser_tabs', { action: 'list' })).text;
      const opened = await a.call('browser_tabs', { action: 'new', url: url() });
      expect(opened.isError).toBe(true);
      if (typeof sentence === 'string') expect(opened.text).toBe(sentence); else expect(opened.text).toMatch(sentence);
      expect((await a.call('browser_tabs', { action: 'list' })).text).toBe(before);

      const shown = await tabUrls();
      expect(shown.some((u) => u === url() || u.startsWith(url().replace(/\/json.*$/, '/json')))).toBe(false);
      const snap = await a.call('browser_snapshot');
      expect(snap.text).toContain('home page');
    });
  }
});

describe('a page reaching the CDP endpoint by itself', () => {
  it('a page\'s own navigation and window.open to the host\'s DevTools endpoint are blocked: no tab shows its webSocketDebuggerUrl', async () => {
    const endpoint = `http://127.0.0.1:${cdpPort}/json/version`;
    await a.call('browser_evaluate', { function: `() => { setTimeout(() => { location.href = ${JSON.stringify(endpoint)}; }, 50); return 1; }` });
    await a.call('browser_evaluate', { function: `() => { window.open(${JSON.stringify(`http://localhost:${cdpPort}/json/list`)}); return 1; }` }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1_500));
    const snap = await a.call('browser_snapshot');
    expect(snap.text).not.toContain('webSocketDebuggerUrl');
    expect(snap.text).not.toContain('Browser');
    // What each tab shows, read in the page itself: a blocked load leaves the browser's error page.
    for (const t of await hostTargets(forge.stateDir)) {
      if (t.type !== 'page') continue;
      const client = await hostPageClient(forge.stateDir, t.id);
      try {
        const { result } = await client.send('Runtime.evaluate', { expression: 'document.documentElement.innerText', returnByValue: true }) as { result: { value?: unknown } };
        expect(String(result.value), t.url).not.toContain('webSocketDebuggerUrl');
      } finally {
        await client.close();
      }
    }
    await a.call('browser_navigate', { url: pages.url });
  });
});

describe('[agent] allow_file_urls = true', () => {
  let agent: Agent;
  let dir: string;

  allowFiles.beforeAll(async ({ agentFor }) => {
    dir = mkdtempSync(join(tmpdir(), 'forge-file-url-'));
    writeFileSync(join(dir, 'page.html'), '<title>On disk</title><p>read from the disk</p>');
    agent = await agentFor('default/files/lead');
  });

  allowFiles.afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  allowFiles('a file: URL opens in the shared browser', async () => {
    const r = await agent.call('browser_navigate', { url: `file://${join(dir, 'page.html')}` });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('read from the disk');
  });
});
