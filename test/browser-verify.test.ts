import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;
let snap = '';

const it = toolPagesTest({ toml: '[agent]\ncaps = ["testing"]\n' }, {
  '/': `<html><head><title>Form</title></head><body>
    <button>Save</button><p>All changes saved</p><p style="display:none">Hidden note</p>
    <ul aria-label="Fruits"><li>Apple</li><li>Pear</li></ul>
    <label>Name <input value="Ada"></label><label><input type="checkbox" checked> Subscribe</label>
  </body></html>`,
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/verify/lead');
  snap = (await a.call('browser_navigate', { url: pages.url })).text;
});

describe('the testing group checks the page and answers the test line that asserts the same', () => {
  it('generate_locator answers the locator a test would use', async () => {
    const r = await a.call('browser_generate_locator', { element: 'Save', target: refOf(snap, 'button', 'Save') });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain(`page.getByRole('button', { name: 'Save' })`);
  });

  it('a visible element and text verify; a missing or hidden one is an error naming what was looked for', async () => {
    const ok = await a.call('browser_verify_element_visible', { role: 'button', accessibleName: 'Save' });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.text).toContain(`await expect(page.getByRole('button', { name: 'Save' })).toBeVisible();`);
    const missing = await a.call('browser_verify_element_visible', { role: 'button', accessibleName: 'Delete' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('no visible button named "Delete" is on tab');
    expect((await a.call('browser_verify_text_visible', { text: 'All changes saved' })).text).toContain(`page.getByText('All changes saved')`);
    const hidden = await a.call('browser_verify_text_visible', { text: 'Hidden note' });
    expect(hidden.isError).toBe(true);
    expect(hidden.text).toContain('the text "Hidden note" is not visible on tab');
  });

  it('a list verifies its items; an item it lacks is named', async () => {
    const list = refOf(snap, 'list', 'Fruits');
    const ok = await a.call('browser_verify_list_visible', { element: 'Fruits', target: list, items: ['Apple', 'Pear'] });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.text).toContain('toMatchAriaSnapshot');
    const bad = await a.call('browser_verify_list_visible', { element: 'Fruits', target: list, items: ['Apple', 'Plum'] });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('has no visible item "Plum"');
  });

  it('a value verifies against the field; a different one says what the field holds', async () => {
    const name = refOf(snap, 'textbox', 'Name');
    expect((await a.call('browser_verify_value', { type: 'textbox', element: 'Name', target: name, value: 'Ada' })).text).toContain(`toHaveValue('Ada')`);
    const wrong = await a.call('browser_verify_value', { type: 'textbox', element: 'Name', target: name, value: 'Bob' });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toContain('holds "Ada", not "Bob"');
    const box = refOf(snap, 'checkbox', 'Subscribe');
    expect((await a.call('browser_verify_value', { type: 'checkbox', target: box, value: 'true' })).text).toContain('toBeChecked()');
    expect((await a.call('browser_verify_value', { type: 'checkbox', target: box, value: 'false' })).isError).toBe(true);
  });
});
