/**
 * A file chooser the page opened holds its tab as a dialog does: the agent's other calls on that
 * tab are refused, in words naming browser_file_upload, and run again once the chooser is
 * answered, or once the page moved on to a new document and took the chooser with it.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf } from './helpers/tool-pages.js';
import { forgeTest } from './fixtures.js';

/** A counter button beside a file input; the page leaves for /next when /flag says "go". */
const PAGE = `<html><head><title>Form</title></head><body>
  <input type="file" id="cv" aria-label="Your CV">
  <button id="count" onclick="this.textContent = 'Clicked ' + (++window.n)">Count</button>
  <script>
    window.n = 0;
    setInterval(async () => { if ((await (await fetch('/flag')).text()).trim() === 'go') location.href = '/next'; }, 100);
  </script></body></html>`;
const NEXT = '<html><head><title>Next page</title></head><body><p>Moved on</p></body></html>';

const it = forgeTest({}, { '/': PAGE, '/next': NEXT, '/flag': 'stay' });

/** Navigates to the page and clicks its file input; the click's answer says a chooser opened. */
async function openChooser(a: Agent, url: string): Promise<{ count: string }> {
  const snap = await a.call('browser_navigate', { url });
  const click = await a.call('browser_click', { element: 'Your CV', target: refOf(snap.text, 'button', 'Your CV') });
  expect(click.isError, click.text).toBe(false);
  expect(click.text).toContain('opened a file chooser');
  // It names both ways to answer: contents (an agent on another machine has no server paths) and paths.
  expect(click.text).toContain('answer it with browser_file_upload (files by their contents or paths on the server, or neither to cancel)');
  return { count: refOf(snap.text, 'button', 'Count') };
}

describe('a file chooser holds its tab until it is answered', () => {
  it('while the chooser is open, a click and a snapshot are refused naming browser_file_upload, and the click never ran', async ({ pages, agentFor }) => {
    const a = await agentFor('default/chooser/lead');
    pages.route('/flag', 'stay');
    const { count } = await openChooser(a, pages.url);
    const click = await a.call('browser_click', { element: 'Count', target: count });
    expect(click.isError).toBe(true);
    expect(click.text).toMatch(/tab \d+ \(\S+\) is held by a file chooser: its page asked for a file/);
    expect(click.text).toContain('browser_file_upload');
    const snap = await a.call('browser_snapshot', {});
    expect(snap.isError).toBe(true);
    expect(snap.text).toContain('is held by a file chooser');

    const cancel = await a.call('browser_file_upload', {});
    expect(cancel.isError, cancel.text).toBe(false);
    expect(cancel.text).toContain('Cancelled the file chooser.');
    const again = await a.call('browser_click', { element: 'Count', target: count });
    expect(again.isError, again.text).toBe(false);
    // The refused click never reached the page: this one is its first.
    expect(again.text).toContain('Clicked 1');
  });

  it('the tab list and a select name the chooser that holds the tab', async ({ pages, agentFor }) => {
    const a = await agentFor('default/chooser/lead');
    pages.route('/flag', 'stay');
    await openChooser(a, pages.url);
    const list = await a.call('browser_tabs', { action: 'list' });
    expect(list.text).toMatch(/- \d+: \(current\) Form · [^\n]* · file chooser waiting/);
    const n = Number(/- (\d+): \(current\)/.exec(list.text)?.[1]);
    const select = await a.call('browser_tabs', { action: 'select', index: n });
    expect(select.text).toContain('Note: a file chooser holds it; answer it with browser_file_upload');
    expect((await a.call('browser_file_upload', {})).isError).toBe(false);
    expect((await a.call('browser_tabs', { action: 'list' })).text).not.toContain('file chooser waiting');
  });

  it('a chooser answered with a file lets the next call run at once', async ({ pages, agentFor }) => {
    const a = await agentFor('default/chooser/lead');
    pages.route('/flag', 'stay');
    const { count } = await openChooser(a, pages.url);
    const up = await a.call('browser_file_upload', { files: [{ name: 'cv.txt', data: Buffer.from('me').toString('base64') }] });
    expect(up.isError, up.text).toBe(false);
    const click = await a.call('browser_click', { element: 'Count', target: count });
    expect(click.isError, click.text).toBe(false);
    expect(click.text).toContain('Clicked 1');
  });

  it('a page that moves on to a new document takes its chooser with it: the tab answers calls again', async ({ pages, agentFor }) => {
    const a = await agentFor('default/chooser/lead');
    pages.route('/flag', 'stay');
    await openChooser(a, pages.url);
    expect((await a.call('browser_snapshot', {})).text).toContain('is held by a file chooser');
    pages.route('/flag', 'go');
    // The page polls its flag every 100 ms; the snapshot of the new page is the sign it left.
    let snap = await a.call('browser_snapshot', {});
    for (let i = 0; i < 100 && (snap.isError || !snap.text.includes('Moved on')); i++) {
      await new Promise((r) => setTimeout(r, 100));
      snap = await a.call('browser_snapshot', {});
    }
    expect(snap.isError, snap.text).toBe(false);
    expect(snap.text).toContain('Moved on');
    const up = await a.call('browser_file_upload', {});
    expect(up.text).toMatch(/no file chooser is open on tab \d+/);
  });
});
