/**
 * A noopener or noreferrer window.open answers null and its tab has no opener: the new tab is the
 * seat's, listed, but not its popup — the seat's current tab stays the opener, a surface showing
 * the opener stays there, and closing the new tab hands nothing back.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

let pages: TestPages;
let a: Agent;
let v: TestViewer;
/** The page the viewer's surface shows: the opener. */
let shownPage: unknown;

const opens = (feature: string): string => `<button onclick="document.title = 'answered ' + (window.open('/p', '_blank', '${feature}') === null ? 'null' : 'a window')">Open ${feature}</button>`;

const it = forgeTest({}, {
  '/': `<title>App</title>${opens('noopener')}${opens('noreferrer')}`,
  '/p': '<title>Opened</title><p>opened</p>',
});

it.beforeAll(async ({ forge, pages: p, agentFor }) => {
  pages = p;
  a = await agentFor('default/noopen/lead');
  await a.call('browser_navigate', { url: pages.url });
  v = await openViewer(forge.info.port, forge.info.viewer_token);
  v.send({ t: 'attach', w: 900, h: 700 });
  shownPage = (await v.next('view')).pageId;
});

it.afterAll(async () => {
  await v?.close();
});

/** A listed tab at /p, the address the button opens. */
const OPENED_ROW = /- (\d+): [^\n]* · http:\/\/[^ ]+\/p · page p-[0-9a-f]+ · owner default\/noopen\/lead/g;

async function untilListed(count: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const list = (await a.call('browser_tabs', { action: 'list' })).text;
    if ((list.match(OPENED_ROW) ?? []).length >= count || Date.now() > deadline) return list;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a noopener open is not the opener\'s popup', () => {
  for (const feature of ['noopener', 'noreferrer']) {
    it(`window.open with ${feature} answers null, and its tab is the seat's but neither its current tab nor followed`, async () => {
      const seen = v.messages.length;
      const clicked = await a.call('browser_click', { ref: `role=button[name="Open ${feature}"]` });
      expect(clicked.isError).toBe(false);
      expect(clicked.text).not.toMatch(/opened a popup/);
      expect(clicked.text).toMatch(/opened tab \d+ \(p-[0-9a-f]{8}\) without an opener/);
      const list = await untilListed(1);
      // The seat's current tab is still the opener (its title now the open's answer).
      expect(list).toContain(`(current) answered null · ${pages.url} `);
      expect([...list.matchAll(OPENED_ROW)].length).toBe(1);
      expect((await a.call('browser_evaluate', { function: '() => document.title' })).text).toContain(`"answered null"`);
      // The surface showing the opener stayed on it.
      await new Promise((r) => setTimeout(r, 1000));
      expect(v.messages.slice(seen).some((m) => m.t === 'view' && m.pageId !== shownPage)).toBe(false);

      const opened = Number([...list.matchAll(OPENED_ROW)].at(-1)![1]);
      await a.call('browser_tabs', { action: 'select', index: opened });
      expect((await a.call('browser_evaluate', { function: '() => window.opener === null' })).text).toContain('true');
      const closed = await a.call('browser_tabs', { action: 'close', index: opened });
      expect(closed.text).not.toMatch(/popup in tab/);
      await a.call('browser_tabs', { action: 'select', index: Number(/- (\d+): \(current\)/.exec(list)![1]) });
    });
  }
});
