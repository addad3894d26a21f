import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const it = toolPagesTest({}, {
  '/': `<html><head><title>Start</title></head><body>
    <button onclick="setTimeout(() => { location.href = '/next'; }, 100)">Later by 100</button>
    <button onclick="setTimeout(() => { location.href = '/next'; }, 300)">Later by 300</button>
    <button onclick="setTimeout(() => { location.href = '/next'; }, 450)">Later by 450</button>
    <button onclick="console.log('saving', 3); console.warn('slow disk'); setTimeout(() => console.error('saved late'), 50)">Log</button>
    <button onclick="for (let i = 0; i < 25; i++) console.log('line ' + i)">Log a lot</button>
    <button onclick="setTimeout(() => alert('saved later'), 100)">Alert later</button>
    <button onclick="document.getElementById('out').textContent = 'clicked'">Plain</button>
    <button ondblclick="document.getElementById('out').textContent = 'double'">Twice</button>
    <button oncontextmenu="event.preventDefault(); document.getElementById('out').textContent = 'right'">Menu</button>
    <button onmouseover="document.getElementById('out').textContent = 'hovered'">Hover me</button>
    <input type="file" aria-label="Attach">
    <label>Name <input id="name" onkeydown="if (event.key === 'Enter') document.getElementById('out').textContent = 'entered ' + this.value"></label>
    <div draggable="true" id="src" ondragstart="event.dataTransfer.setData('text/plain', 'card')">Card</div>
    <div id="dst" role="region" aria-label="Drop zone" style="width:200px;height:80px;border:1px solid" ondragover="event.preventDefault()" ondrop="event.preventDefault(); document.getElementById('out').textContent = 'dropped ' + event.dataTransfer.getData('text/plain')">Drop here</div>
    <p id="out" role="status">idle</p>
  </body></html>`,
  '/next': '<html><head><title>Next page</title></head><body><h1>Arrived</h1></body></html>',
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/effects/lead');
});

const out = async (): Promise<string> => (await a.call('browser_evaluate', { function: "() => document.getElementById('out').textContent" })).text;

describe('an action answers with what it started', () => {
  it.for(['100', '300', '450'])('a click whose handler navigates %s ms later answers with the new page', async (ms) => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { element: 'Later', target: refOf(snap.text, 'button', `Later by ${ms}`) });
    expect(r.isError).toBe(false);
    expect(r.text).toContain(`navigated the tab to ${pages.origin}/next`);
    expect(r.text).toContain('Arrived');
  });

  it('a click answers with what the page logged meanwhile, a handler\'s timer included', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Log') });
    expect(r.isError, r.text).toBe(false);
    const section = r.text.slice(r.text.indexOf('### New console messages'));
    expect(section).toMatch(/^### New console messages\n- \[log\] saving 3 @ http:\S+:\d+\n- \[warning\] slow disk @ \S+\n- \[error\] saved late/);
    // What was logged before the click is not news.
    const again = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Plain') });
    expect(again.text).not.toContain('### New console messages');
  });

  it('a click that logs a lot shows its last ten messages and counts the rest', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Log a lot') });
    expect(r.text).toContain('(15 earlier of this call\'s messages not shown: browser_console_messages lists what the tab keeps)');
    expect(r.text).toContain('- [log] line 24 @');
    expect(r.text).toContain('- [log] line 15 @');
    expect(r.text).not.toContain('- [log] line 14 @');
  });

  it('a click that raises an alert 100 ms later says the dialog opened', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Alert later') });
    expect(r.text).toMatch(/opened an alert dialog: "saved later"/);
    const d = await a.call('browser_handle_dialog', { accept: true });
    expect(d.isError).toBe(false);
  });

  it('a click on a file input says a file chooser opened', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Attach') });
    expect(r.text).toContain('opened a file chooser');
    expect((await a.call('browser_file_upload', {})).isError).toBe(false);
  });

  it('a click that starts nothing answers with the page as it changed', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { target: refOf(snap.text, 'button', 'Plain') });
    expect(r.isError).toBe(false);
    expect(r.text).not.toContain('navigated');
    expect(r.text).toMatch(/status \[ref=[^\]]+\]: clicked/);
  });
});

describe('the element is named by target or ref', () => {
  it('click, type and hover take target', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_hover', { element: 'Hover me', target: refOf(snap.text, 'button', 'Hover me') });
    expect(await out()).toContain('hovered');
    const t = await a.call('browser_type', { target: refOf(snap.text, 'textbox', 'Name'), text: 'Ada', submit: true });
    expect(t.isError).toBe(false);
    expect(await out()).toContain('entered Ada');
    await a.call('browser_click', { target: 'role=button[name="Plain"]' });
    expect(await out()).toContain('clicked');
  });

  it('the older ref still works, and a call whose target and ref differ is refused in words', async () => {
    const snap = await a.call('browser_snapshot');
    const plain = refOf(snap.text, 'button', 'Plain');
    expect((await a.call('browser_click', { ref: plain })).isError).toBe(false);
    const r = await a.call('browser_click', { target: plain, ref: refOf(snap.text, 'button', 'Later by 100') });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/target "(?:f\d+)?e\d+" and ref "(?:f\d+)?e\d+" name different elements; give one of them/);
    const none = await a.call('browser_click', {});
    expect(none.isError).toBe(true);
    expect(none.text).toContain('name the element with target');
  });

  it('a click takes doubleClick and button as Playwright MCP does', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_click', { target: refOf(snap.text, 'button', 'Twice'), doubleClick: true });
    expect(await out()).toContain('double');
    await a.call('browser_click', { target: refOf(snap.text, 'button', 'Menu'), button: 'right' });
    expect(await out()).toContain('right');
  });

  it('a drag carries one element onto another', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_drag', { startElement: 'Card', startTarget: '#src', endElement: 'Drop zone', endTarget: refOf(snap.text, 'region', 'Drop zone') });
    expect(r.isError).toBe(false);
    expect(await out()).toContain('dropped card');
  });
});
