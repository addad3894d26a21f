import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const ITEMS = Array.from({ length: 60 }, (_, i) => `<li><a href="/other">Item number ${i}</a></li>`).join('');
const SHOP = `<html><head><title>Shop</title></head><body>
  <h1>Shop</h1>
  <label>Search <input id="q"></label>
  <button onclick="panel.hidden = false">Open filters</button>
  <section id="panel" hidden aria-label="Filters"><label><input type="checkbox"> In stock only</label><button onclick="done.hidden = false">Apply filters</button></section>
  <p id="done" hidden>Filters applied</p>
  <ul>${ITEMS}</ul>
  <a href="/other">Other page</a>
</body></html>`;
const OTHER = '<html><head><title>Other</title></head><body><h1>Another page</h1><button>Only here</button></body></html>';

const ROUTES = { '/': SHOP, '/other': OTHER };

const it = toolPagesTest({}, ROUTES);
/** The same pages on a server of its own whose actions answer the whole page. */
const full = toolPagesTest({ toml: '[agent]\nsnapshot = "full"\n' }, ROUTES);

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/changes/lead');
});

describe('an action answers what changed in the page since the seat last read it', () => {
  let opened = '';

  it('a click that reveals a panel answers with the panel\'s lines, not the whole page', async () => {
    const first = (await a.call('browser_navigate', { url: pages.url })).text;
    // Arriving, the long list is shown by its first items; the whole page is browser_snapshot's.
    expect(first).toContain('… 50 more listitem entries');
    const whole = (await a.call('browser_snapshot')).text;
    expect(whole).toContain('Item number 59');
    const r = await a.call('browser_click', { target: refOf(first, 'button', 'Open filters') });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('Page changes since your last snapshot');
    expect(r.text).toMatch(/\+ .*checkbox "In stock only" \[ref=(?:f\d+)?e\d+\]/);
    expect(r.text).toMatch(/\+ .*button "Apply filters" \[ref=(?:f\d+)?e\d+\]/);
    expect(r.text).not.toContain('Item number 30');
    expect(r.text.length).toBeLessThan(whole.length / 3);
    opened = r.text;
  });

  it('a ref the changes carry works in the next click', async () => {
    const r = await a.call('browser_click', { target: refOf(opened, 'button', 'Apply filters') });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/\+ .*Filters applied/);
    expect(r.text).not.toContain('Item number 30');
  });

  it('a typed value shows as a changed line with its ref', async () => {
    const whole = (await a.call('browser_snapshot')).text;
    expect(whole).toContain('Item number 30');
    const ref = refOf(whole, 'textbox', 'Search');
    const r = await a.call('browser_type', { target: ref, text: 'blue shoes' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(new RegExp(`~ .*textbox "Search"[^\\n]*\\[ref=${ref}\\][^\\n]*blue shoes`));
    expect(r.text).not.toContain('Item number 30');
  });

  it('a Tab that only moves the focus says where the focus went, though no line changed', async () => {
    await a.call('browser_snapshot');
    const r = await a.call('browser_press_key', { key: 'Tab' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('unchanged since your last snapshot of this tab');
    expect(r.text).toMatch(/- Focus moved to button "Open filters" \[ref=(?:f\d+)?e\d+\]/);
    // Read again with nothing moved: nothing is said of the focus.
    expect((await a.call('browser_press_key', { key: 'Shift' })).text).not.toContain('Focus moved');
  });

  it('a navigation to another page answers the whole page', async () => {
    const snap = (await a.call('browser_snapshot')).text;
    const r = await a.call('browser_click', { target: refOf(snap, 'link', 'Other page') });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('- Page snapshot:');
    expect(r.text).toMatch(/heading "Another page"/);
    expect(r.text).toMatch(/button "Only here" \[ref=(?:f\d+)?e\d+\]/);
    expect(r.text).not.toContain('Page changes since');
  });

  it('a Tab past the page\'s last control says the focus left every element, in words', async () => {
    await a.call('browser_navigate', { url: 'data:text/html,<title>One</title><button>Only</button>' });
    await a.call('browser_click', { target: 'button' });
    const r = (await a.call('browser_press_key', { key: 'Tab' })).text;
    expect(r).toContain('- Focus left every element: nothing on the page has it now');
    expect(r).not.toContain('Focus moved to nothing');
  });
});

describe('[agent] snapshot = "full" answers every action with the whole page', () => {
  full('a click that reveals a panel answers the whole page', async ({ toolPages, agentFor }) => {
    const b = await agentFor('default/changes/lead');
    const first = (await b.call('browser_navigate', { url: toolPages.url })).text;
    const r = await b.call('browser_click', { target: refOf(first, 'button', 'Open filters') });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('- Page snapshot:');
    expect(r.text).toContain('Item number 30');
    expect(r.text).toMatch(/checkbox "In stock only" \[ref=(?:f\d+)?e\d+\]/);
    expect(r.text).not.toContain('Page changes since');
  });
});
