/**
 * A key press answers with what it started, as a click does: Enter in a form answers with the page
 * the form went to, and a shortcut whose handler navigates or raises an alert a little later is in
 * that key press's answer, not the next call's.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const it = toolPagesTest({}, {
  '/': `<html><head><title>Search</title></head><body>
    <form action="/results"><label>Query <input name="q" autofocus></label></form>
    <script>
      addEventListener('keydown', (e) => {
        if (e.key === 'g') setTimeout(() => { location.href = '/later'; }, 100);
        if (e.key === 'a') setTimeout(() => alert('key alert'), 100);
      });
    </script>
  </body></html>`,
  '/results': '<html><head><title>Results</title></head><body><h1>Found it</h1></body></html>',
  '/later': '<html><head><title>Later</title></head><body><h1>Went later</h1></body></html>',
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/keys/lead');
});

describe('a key press answers with what it started', () => {
  it('Enter in a form answers with the page the form submitted to', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_click', { target: refOf(snap.text, 'textbox', 'Query') });
    const r = await a.call('browser_press_key', { key: 'Enter' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text, r.text).toContain(`navigated the tab to ${pages.origin}/results`);
    expect(r.text).toContain('Found it');
  });

  it('a shortcut whose handler navigates 100 ms later answers with the new page', async () => {
    await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_evaluate', { function: '() => document.activeElement.blur()' });
    const r = await a.call('browser_press_key', { key: 'g' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text, r.text).toContain(`navigated the tab to ${pages.origin}/later`);
    expect(r.text).toContain('Went later');
  });

  it('a shortcut that raises an alert 100 ms later says the dialog opened', async () => {
    await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_evaluate', { function: '() => document.activeElement.blur()' });
    const r = await a.call('browser_press_key', { key: 'a' });
    expect(r.text).toMatch(/opened an alert dialog: "key alert"/);
    expect((await a.call('browser_handle_dialog', { accept: true })).isError).toBe(false);
  });
});
