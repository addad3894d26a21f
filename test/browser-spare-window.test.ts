/**
 * The spare window: the driver keeps one blank window with its renderer ready, and a rebuilt
 * (unloaded) tab is sent there instead of waiting for a window to be made. The tab it becomes
 * holds its own page alone in its history, as a window opened at its address would, and the
 * spare itself is never a tab: not the agent's, not the strip's, not offered to anyone.
 */
import { hostTargets } from './helpers/host-devtools.js';
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { SPARE_WINDOW_REFILL_MS } from '../dist/src/main/browser/driver.js';

let forge: RunningServer;
let pages: TestPages;
let a: Agent;
let v: TestViewer;

/** Longest wait for the spare window to be made, ms: its refill delay and a window's making on a busy machine. */
const SPARE_WAIT_MS = SPARE_WINDOW_REFILL_MS + 15_000;

const routes: Record<string, string> = {};
for (let n = 1; n <= 3; n++) routes[`/p/${n}`] = `<title>Page ${n}</title><p>page number ${n}</p>`;

const it = forgeTest({ toml: '[browser]\nhidden_agent_tabs = 1\n' }, routes);

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  a = await agentFor('default/spare/lead');
  v = await openViewer(forge.info.port, forge.info.viewer_token);
  await a.call('browser_navigate', { url: `${pages.origin}/p/1` });
});

it.afterAll(async () => {
  await v?.close();
});

interface Target { id: string; type: string; url: string }

/** The browser's page targets, read beside forge on the host's own port (the test's check, not an agent's path). */
async function pageTargets(): Promise<Target[]> {
  return (await hostTargets(forge.stateDir)).filter((t) => t.type === 'page');
}

/** Whether /metrics says the profile's spare window is ready (its window listed and its page held by the driver). */
async function spareReady(): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } });
  return (await res.text()).includes('forge_browser_spare_windows{profile="default/default"} 1');
}

/** The blank page target no tab holds once every tab is at a test page: the spare window, once the driver holds it. */
async function spareTarget(): Promise<Target> {
  const end = Date.now() + SPARE_WAIT_MS;
  for (;;) {
    const blank = (await pageTargets()).filter((t) => t.url === 'about:blank');
    if (blank.length === 1 && await spareReady()) return blank[0];
    if (Date.now() > end) throw new Error(`no spare window after ${SPARE_WAIT_MS} ms: ${blank.length} blank pages, ${await spareReady() ? '' : 'none '}ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the spare window', () => {
  it('an unloaded tab is rebuilt in the window kept blank for it, at its address, with no blank page behind it in its history', async () => {
    for (const n of [2, 3]) expect((await a.call('browser_tabs', { action: 'new', url: `${pages.origin}/p/${n}` })).isError).toBe(false);
    const list = (await a.call('browser_tabs', { action: 'list' })).text;
    expect(list).toMatch(/^- 1:.*· unloaded/m);
    const spare = await spareTarget();

    await a.call('browser_tabs', { action: 'select', index: 1 });
    const revived = await a.call('browser_snapshot');
    expect(revived.text).toContain('had been unloaded to save memory and was reloaded');
    expect(revived.text).toContain('page number 1');
    // The window that waited blank is the tab's now, at its address.
    expect((await pageTargets()).find((t) => t.id === spare.id)?.url).toBe(`${pages.origin}/p/1`);

    const back = await a.call('browser_navigate_back');
    expect(back.text).toContain('There is no earlier page in tab 1\'s history');
    expect(back.text).toMatch(new RegExp(`Page: tab 1 \\(p-[0-9a-f]+\\) · Page 1 · ${pages.origin}/p/1`));
    // And another is made for the next open.
    expect((await spareTarget()).id).not.toBe(spare.id);
  });

  it('is no tab: the agent\'s list and the strip show the tabs alone while it waits', async () => {
    await spareTarget();
    const numbers = (await a.call('browser_tabs', { action: 'list' })).text.split('\n').filter((l) => /^- \d+:/.test(l));
    expect(numbers).toHaveLength(3);
    const seen = v.messages.length;
    v.send({ t: 'tabs' });
    await v.next('tabs', () => v.messages.length > seen);
    const rows = [...v.messages].reverse().find((m) => m.t === 'tabs')!.tabs as Array<{ url: string }>;
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.url)).not.toContain('about:blank');
  });
});
