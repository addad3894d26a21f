/**
 * fill_form clicks a checkbox only where a person's click would reach it: a box a banner covers
 * is not clicked through (the banner's own button stays unpressed and the box unchecked), and
 * the call says what stopped it; a disabled box is not changed either. A box in plain view, and
 * one scrolled out of view, are checked.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const PAGE = `<html><head><title>Covered</title><style>body{margin:0}
#banner{position:fixed;left:0;top:0;width:100vw;height:120px;background:#333;color:#fff}</style></head><body>
<label style="position:absolute;top:40px"><input type="checkbox" id="under"> Under the banner</label>
<label style="position:absolute;top:200px"><input type="checkbox" id="plain"> In plain view</label>
<label style="position:absolute;top:260px"><input type="checkbox" id="off" disabled> Switched off</label>
<label style="position:absolute;top:3000px"><input type="checkbox" id="far"> Far down</label>
<div id="banner" onclick="document.title = 'banner clicked'">Cookies: accept all</div>
</body></html>`;

const it = toolPagesTest({}, { '/': PAGE });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/covered/lead');
});

const state = async (): Promise<{ title: string; under: boolean; plain: boolean; off: boolean; far: boolean }> => {
  const r = await a.call('browser_evaluate', { function: '() => ({ title: document.title, under: under.checked, plain: plain.checked, off: off.checked, far: far.checked })' });
  return JSON.parse(r.text.slice(r.text.indexOf('{'), r.text.lastIndexOf('}') + 1));
};

describe('fill_form on checkboxes a click may not reach', () => {
  it('a box under a banner is not clicked through: the call is an error naming what is in the way, and nothing changed', async () => {
    const snap = (await a.call('browser_navigate', { url: pages.url })).text;
    const r = await a.call('browser_fill_form', { fields: [{ name: 'Under the banner', type: 'checkbox', target: refOf(snap, 'checkbox', 'Under the banner'), value: 'true' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('another element is on top of it and would take the click');
    expect(r.text).toContain('Cookies: accept all');
    expect(await state()).toMatchObject({ title: 'Covered', under: false });
  });

  it('a disabled box is an error and stays as it was', async () => {
    const snap = (await a.call('browser_navigate', { url: pages.url })).text;
    const r = await a.call('browser_fill_form', { fields: [{ name: 'Switched off', type: 'checkbox', target: refOf(snap, 'checkbox', 'Switched off'), value: 'true' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('the element is disabled');
    expect(await state()).toMatchObject({ off: false });
  });

  it('a box in plain view and one far down the page are both checked, and the banner is never pressed', async () => {
    const snap = (await a.call('browser_navigate', { url: pages.url })).text;
    const r = await a.call('browser_fill_form', { fields: [
      { name: 'In plain view', type: 'checkbox', target: refOf(snap, 'checkbox', 'In plain view'), value: 'true' },
      { name: 'Far down', type: 'checkbox', target: refOf(snap, 'checkbox', 'Far down'), value: 'true' },
    ] });
    expect(r.isError).toBe(false);
    expect(await state()).toMatchObject({ title: 'Covered', plain: true, far: true });
  });
});
