import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { openViewer } from './helpers/viewer.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const it = toolPagesTest({}, {
  '/': `<html><head><title>Shop</title></head><body><nav><ul><li><a href="/a">Orders</a></li><li><a href="/b">Invoices</a></li></ul></nav>
    <main><h1>Order 1042</h1><section><div><div><button>Refund order</button></div></div></section></main></body></html>`,
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/find/lead');
  await a.call('browser_navigate', { url: pages.url });
});

describe('find answers the snapshot lines that match, with their refs', () => {
  it('text matches case-insensitively and carries refs', async () => {
    const r = await a.call('browser_find', { text: 'ORDER' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/3 lines of the snapshot match "ORDER"/);
    expect(r.text).toMatch(/link "Orders" \[ref=(?:f\d+)?e\d+\]/);
    expect(r.text).toMatch(/button "Refund order" \[ref=(?:f\d+)?e\d+\]/);
    // Each match is the snapshot's line as one list entry: no second dash, no trailing colon.
    expect(r.text).toMatch(/\n- link "Orders" \[ref=(?:f\d+)?e\d+\][^\n:]*\n/);
    expect(r.text).not.toContain('- - ');
  });

  it('a regex matches with its flags; nothing matching is said; a bad one is refused', async () => {
    expect((await a.call('browser_find', { regex: '/invoice/i' })).text).toContain('link "Invoices"');
    expect((await a.call('browser_find', { text: 'zebra' })).text).toContain('No line of the snapshot matches');
    const bad = await a.call('browser_find', { regex: '(' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('not a valid regular expression');
  });
});

describe('snapshot takes a depth and a target', () => {
  it('depth cuts the tree; target snapshots one subtree', async () => {
    const full = (await a.call('browser_snapshot')).text;
    const cut = (await a.call('browser_snapshot', { depth: 1 })).text;
    expect(full).toContain('Refund order');
    expect(cut).not.toContain('Refund order');
    const nav = (await a.call('browser_snapshot', { target: 'role=navigation' })).text;
    expect(nav).toContain('Invoices');
    expect(nav).not.toContain('Refund order');
  });
});

describe('resize lays the tab out while nobody views it', () => {
  it('the page takes the size asked', async () => {
    const r = await a.call('browser_resize', { width: 900, height: 600 });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('laid out at 900x600');
    expect((await a.call('browser_evaluate', { function: '() => [innerWidth, innerHeight]' })).text.replace(/\s/g, '')).toContain('[900,600]');
  });

  it('a phone\'s width, narrower than any window, is laid out exactly, and a person who opens the tab gets their own layout', async ({ forge }) => {
    const size = async (): Promise<string> => (await a.call('browser_evaluate', { function: '() => [innerWidth, innerHeight, matchMedia("(max-width: 400px)").matches]' })).text.replace(/\s/g, '');
    const narrow = await a.call('browser_resize', { width: 390, height: 700 });
    expect(narrow.isError).toBe(false);
    expect(narrow.text).toContain('laid out at 390x700');
    expect(narrow.text).not.toContain('asked');
    expect(await size()).toContain('[390,700,true]');
    const shot = await a.client.callTool({ name: 'browser_take_screenshot', arguments: {} }, undefined, { timeout: 60_000 });
    const png = Buffer.from((shot.content as Array<{ type: string; data?: string }>).find((c) => c.type === 'image')?.data ?? '', 'base64');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)], 'the screenshot is the phone-wide page').toEqual([390, 700]);
    const v = await openViewer(forge.info.port, forge.info.viewer_token);
    try {
      v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
      const seen = await Promise.race([v.next('view'), v.next('error')]);
      expect(seen.t, JSON.stringify(seen)).toBe('view');
      await expect.poll(size, { timeout: 10_000 }).toContain('[800,600,false]');
    } finally {
      await v.close();
    }
  });

  it('after a person on a phone leaves the tab, the agent\'s resize gets the size it asks', async ({ forge }) => {
    const v = await openViewer(forge.info.port, forge.info.viewer_token);
    try {
      v.send({ t: 'attach', tab: 1, w: 360, h: 640 });
      await v.next('view', (m) => m.width === 360);
    } finally {
      await v.close();
    }
    // The tab is the agent's to lay out once the viewer is gone (its refusal says while it is not).
    await expect.poll(async () => (await a.call('browser_resize', { width: 900, height: 600 })).text, { timeout: 10_000 }).toContain('laid out at 900x600');
    expect((await a.call('browser_evaluate', { function: '() => [innerWidth, innerHeight]' })).text.replace(/\s/g, '')).toContain('[900,600]');
  });

  it('while a person views the tab, resize is refused naming that', async ({ forge }) => {
    const v = await openViewer(forge.info.port, forge.info.viewer_token);
    try {
      v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
      const seen = await Promise.race([v.next('view'), v.next('error')]);
      expect(seen.t, JSON.stringify(seen)).toBe('view');
      const r = await a.call('browser_resize', { width: 800, height: 600 });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('a person is viewing tab');
    } finally {
      await v.close();
    }
  });
});
