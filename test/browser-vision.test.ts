import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;
let b: Agent;

/** A page that writes where the pointer went down, moved and went up, in client (CSS) px. */
const PAD = `<html><head><title>Pad</title><style>body{margin:0}#pad{width:600px;height:400px;background:#eee}</style></head><body>
  <div id="pad"></div><p id="out" role="status">idle</p><p id="clicked">none</p>
  <button style="position:absolute;left:20px;top:420px;width:100px;height:30px" onclick="setTimeout(() => alert('pressed'), 50)">Alert</button>
  <script>
    const out = document.getElementById('out'); const log = [];
    const pad = document.getElementById('pad');
    pad.addEventListener('click', (e) => { document.getElementById('clicked').textContent = 'click ' + e.clientX + ',' + e.clientY; });
    pad.addEventListener('pointerdown', (e) => log.push('down ' + e.clientX + ',' + e.clientY));
    pad.addEventListener('pointerup', (e) => { log.push('up ' + e.clientX + ',' + e.clientY); out.textContent = log.join(' '); });
  </script></body></html>`;

const it = toolPagesTest({ toml: '[agent]\ncaps = ["vision"]\n' }, { '/': PAD });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/vision/lead');
  b = await agentFor('default/vision/other');
  await a.call('browser_navigate', { url: pages.url });
  await b.call('browser_navigate', { url: pages.url });
});

const out = async (agent: Agent): Promise<string> => (await agent.call('browser_evaluate', { function: "() => document.getElementById('out').textContent" })).text;
const clicked = async (agent: Agent): Promise<string> => (await agent.call('browser_evaluate', { function: "() => document.getElementById('clicked').textContent" })).text;

describe('the vision group drives the mouse by the CSS pixels of the seat\'s own tab', () => {
  it('a click at x, y lands at that point of the page', async () => {
    const r = await a.call('browser_mouse_click_xy', { x: 120, y: 80 });
    expect(r.isError, r.text).toBe(false);
    expect(await clicked(a)).toContain('click 120,80');
  });

  it('a drag goes down at its start and up at its end', async () => {
    const r = await a.call('browser_mouse_drag_xy', { startX: 50, startY: 60, endX: 300, endY: 200 });
    expect(r.isError, r.text).toBe(false);
    expect(await out(a)).toContain('down 50,60 up 300,200');
  });

  it('move, down and up press where the mouse was moved to', async () => {
    await a.call('browser_mouse_move_xy', { x: 10, y: 20 });
    await a.call('browser_mouse_down', {});
    await a.call('browser_mouse_move_xy', { x: 400, y: 350 });
    expect((await a.call('browser_mouse_up', {})).isError).toBe(false);
    expect(await out(a)).toContain('down 10,20 up 400,350');
  });

  it('one seat\'s click never reaches another seat\'s tab', async () => {
    expect(await clicked(b)).toContain('none');
    await b.call('browser_mouse_click_xy', { x: 5, y: 6 });
    expect(await clicked(b)).toContain('click 5,6');
    expect(await clicked(a)).not.toContain('click 5,6');
  });

  it('a point outside the viewport is refused in words', async () => {
    const r = await a.call('browser_mouse_click_xy', { x: 5000, y: 10 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/\(5000, 10\) is outside tab \d+'s viewport, which is \d+x\d+ CSS px/);
  });

  it('a click that raises a dialog says so, and a held dialog refuses the next mouse call naming it', async () => {
    const r = await a.call('browser_mouse_click_xy', { x: 70, y: 435 });
    expect(r.text).toMatch(/opened an alert dialog: "pressed"/);
    const refused = await a.call('browser_mouse_click_xy', { x: 120, y: 80 });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/alert/);
    expect(refused.text).toContain('pressed');
    expect((await a.call('browser_handle_dialog', { accept: true })).isError).toBe(false);
  });
});
