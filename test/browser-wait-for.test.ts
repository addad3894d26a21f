import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const it = toolPagesTest({}, {
  '/': `<html><head><title>Waits</title></head><body><p id="p">Loading orders…</p>
    <button onclick="setTimeout(() => { p.textContent = 'Orders are ready'; }, 700)">Load</button>
    <button onclick="setTimeout(() => confirm('leave the draft?'), 600)">Ask</button></body></html>`,
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/waits/lead');
});

describe('wait_for waits for what the agent names, bounded', () => {
  it('text that appears later is waited for, and the one it replaced is gone', async () => {
    await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_click', { target: 'role=button[name="Load"]' });
    const r = await a.call('browser_wait_for', { text: 'Orders are ready' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('"Orders are ready" appeared');
    const g = await a.call('browser_wait_for', { textGone: 'Loading orders' });
    expect(g.isError).toBe(false);
    expect(g.text).toContain('is gone');
  });

  it('text that never comes is a timeout in words within the time asked', async () => {
    const r = await a.call('browser_wait_for', { text: 'Never here', time: 1 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/"Never here" did not appear on tab \d+ .* after 1 s/);
  });

  it('a time is waited; past the bound it is refused', async () => {
    expect((await a.call('browser_wait_for', { time: 0.2 })).text).toContain('Waited 0.2 s');
    const r = await a.call('browser_wait_for', { time: 31 });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('at most 30 s');
  });

  it('a dialog raised mid-wait refuses the wait, naming the dialog', async () => {
    await a.call('browser_click', { target: 'role=button[name="Ask"]' });
    const r = await a.call('browser_wait_for', { text: 'Never here' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/cut short: .*held by a confirm dialog: "leave the draft\?"/);
    expect((await a.call('browser_handle_dialog', { accept: false })).isError).toBe(false);
  });
});
