import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

/** The page reads what it was given, names, types and bytes, into #out. */
const PAGE = `<html><head><title>Files</title></head><body>
  <input type="file" id="one" aria-label="One file">
  <input type="file" id="many" multiple aria-label="Many files">
  <div id="zone" role="region" aria-label="Drop zone" style="width:300px;height:100px;border:1px solid" ondragover="event.preventDefault()">Drop here</div>
  <p id="out" role="status">idle</p>
  <script>
    const out = document.getElementById('out');
    const describe = async (files) => (await Promise.all([...files].map(async (f) => f.name + ':' + f.type + ':' + (await f.text())))).join(' | ');
    for (const id of ['one', 'many']) document.getElementById(id).addEventListener('change', async (e) => { out.textContent = 'chose ' + await describe(e.target.files); });
    document.getElementById('zone').addEventListener('drop', async (e) => {
      e.preventDefault();
      out.textContent = 'dropped ' + await describe(e.dataTransfer.files) + ' text=' + e.dataTransfer.getData('text/plain');
    });
  </script></body></html>`;

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const it = toolPagesTest({}, { '/': PAGE });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/files/lead');
});

const out = async (): Promise<string> => (await a.call('browser_evaluate', { function: "() => document.getElementById('out').textContent" })).text;

describe('an agent on another machine gives the page files by their contents', () => {
  it('browser_file_upload answers the chooser with files sent as base64, named and typed as sent', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_click', { target: refOf(snap.text, 'button', 'Many files') });
    const r = await a.call('browser_file_upload', { files: [
      { name: 'notes.txt', mimeType: 'text/plain', data: b64('hello') },
      { name: 'data.csv', mimeType: 'text/csv', data: b64('a,b') },
    ] });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Chose notes.txt (5 bytes), data.csv (3 bytes).');
    expect(await out()).toContain('chose notes.txt:text/plain:hello | data.csv:text/csv:a,b');
  });

  it('two files for a chooser that takes one, or data that is not base64, are refused in words', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_click', { target: refOf(snap.text, 'button', 'One file') });
    const two = await a.call('browser_file_upload', { files: [{ name: 'a', data: b64('1') }, { name: 'b', data: b64('2') }] });
    expect(two.isError).toBe(true);
    expect(two.text).toMatch(/the file chooser on tab \d+ takes one file, not 2/);
    const bad = await a.call('browser_file_upload', { files: [{ name: 'a', data: '%%%' }] });
    expect(bad.text).toContain('the data of a is not base64');
    expect((await a.call('browser_file_upload', { files: [{ name: 'ok.txt', data: b64('fine') }] })).isError).toBe(false);
    expect(await out()).toContain('chose ok.txt:application/octet-stream:fine');
  });

  it('a file whose contents are text is given as text, typed text/plain unless named; contents given twice or not at all are refused', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_click', { target: refOf(snap.text, 'button', 'Many files') });
    const twice = await a.call('browser_file_upload', { files: [{ name: 'x.txt', text: 'hi', data: b64('hi') }] });
    expect(twice.isError).toBe(true);
    expect(twice.text).toContain('give x.txt its contents once: data (base64) or text, not both');
    const none = await a.call('browser_file_upload', { files: [{ name: 'y.txt' }] });
    expect(none.text).toContain('give y.txt its contents: data (base64) or text');
    const r = await a.call('browser_file_upload', { files: [{ name: 'note.md', text: 'héllo wörld' }, { name: 'list.csv', mimeType: 'text/csv', text: 'a,b' }] });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Chose note.md (13 bytes), list.csv (3 bytes).');
    expect(await out()).toContain('chose note.md:text/plain:héllo wörld | list.csv:text/csv:a,b');
  });

  it('browser_drop drops files and text on an element as a drag from outside the page would', async () => {
    const snap = await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_drop', { element: 'Drop zone', target: refOf(snap.text, 'region', 'Drop zone'), files: [{ name: 'photo.txt', mimeType: 'text/plain', data: b64('pixels') }], data: { 'text/plain': 'caption' } });
    expect(r.isError, r.text).toBe(false);
    expect(await out()).toContain('dropped photo.txt:text/plain:pixels text=caption');
    const nothing = await a.call('browser_drop', { target: refOf(snap.text, 'region', 'Drop zone') });
    expect(nothing.text).toContain('give something to drop: files, paths or data');
  });
});
