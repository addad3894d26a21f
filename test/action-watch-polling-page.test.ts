/**
 * The watch after a call waits for the short timers the call itself started, and only those: a
 * page that polls (each tick setting the next) has its ticks left out, so an action there answers
 * with what it started without waiting the poll out; a popup a page opens from a timer an
 * evaluate set a moment earlier is in that evaluate's answer, found by asking the page, not by a
 * fixed sleep.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

/** The page's poll: every 100 ms a tick sets the next one, as a dashboard's refresh does. */
const POLLING = `<script>
  let ticks = 0;
  (function poll() { ticks++; document.getElementById('ticks').textContent = 'ticks ' + ticks; setTimeout(poll, 100); })();
</script>`;

const it = toolPagesTest({}, {
  '/': `<html><head><title>Dashboard</title></head><body><p id="ticks"></p>
    <button onclick="setTimeout(() => { location.href = '/later'; }, 100)">Open later</button>
    <button onclick="setTimeout(() => { document.title = 'one'; setTimeout(() => { document.title = 'two'; }, 50); }, 50)">Two steps</button>
    <button onclick="document.title = 'pressed'">Nothing more</button>
    ${POLLING}
  </body></html>`,
  '/later': '<html><head><title>Later</title></head><body><h1>Went later</h1></body></html>',
  '/popup': '<html><head><title>Popup page</title></head><body><h1>A popup</h1></body></html>',
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/poll/lead');
});

describe('the watch after a call waits for the timers the call started, never a page\'s poll', () => {
  it('on a polling page, a click whose handler navigates 100 ms later answers with the new page', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Open later') });
    expect(r.isError, r.text).toBe(false);
    expect(r.text, r.text).toContain(`navigated the tab to ${pages.origin}/later`);
    expect(r.text).toContain('Went later');
  });

  it('on a polling page, a click that starts nothing answers with the page as the click left it', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Nothing more') });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).not.toContain('navigated');
    expect(r.text).toContain('pressed');
  });

  it('the page counts a poll tick as nobody\'s pending work, and a handler\'s timer and the timer it set as the action\'s', async () => {
    await a.call('browser_navigate', { url: pages.url });
    // The page's own answers, asked as the watch asks them: the poll ticks throughout.
    const r = await a.call('browser_evaluate', { function: `async () => {
      const since = Date.now();
      const due = () => window.__forgeActionWatch(since, Number.MAX_SAFE_INTEGER).due;
      const wait = (ms) => new Promise((r) => setTimeout(r, ms));
      await wait(250);
      const beforeClick = due();
      [...document.querySelectorAll('button')].find((b) => b.textContent === 'Two steps').click();
      const afterClick = due() > 0;
      await wait(75);
      const secondStep = due() > 0;
      await wait(150);
      return JSON.stringify({ beforeClick, afterClick, secondStep, end: due(), title: document.title });
    }` });
    expect(r.isError, r.text).toBe(false);
    const seen = JSON.parse(JSON.parse(/### Result\n(.*)/.exec(r.text)![1]) as string) as Record<string, unknown>;
    expect(seen).toEqual({ beforeClick: 0, afterClick: true, secondStep: true, end: 0, title: 'two' });
  });

  it('a popup the page opens from a 10 ms timer an evaluate set is in that evaluate\'s answer', async () => {
    await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_evaluate', { function: `() => { setTimeout(() => window.open('/popup', 'later'), 10); return 'set'; }` });
    expect(r.isError, r.text).toBe(false);
    expect(r.text, r.text).toMatch(/opened a popup: tab \d+ \(p-[0-9a-f]{8}\), now your current tab/);
    expect((await a.call('browser_snapshot')).text).toContain('A popup');
    await a.call('browser_tabs', { action: 'close' });
  });
});
