import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const it = toolPagesTest({}, {
  // A plain page the back/forward cache keeps: no unload handler, cacheable.
  // Restored, it names itself so, and 3 s later changes its title again: an answer that waited
  // for a DOMContentLoaded the restore never fires would show the later title.
  '/first': `<html><head><title>First</title><script>addEventListener('pageshow', (e) => { document.title = 'First' + (e.persisted ? ' (restored)' : ''); if (e.persisted) setTimeout(() => { document.title = 'First (later)'; }, 3000); });</script></head><body><a href="/second">to second</a></body></html>`,
  '/second': '<html><head><title>Second</title></head><body>second</body></html>',
  '/slow-image': '<html><head><title>Mostly there</title></head><body><h1>Usable</h1><img src="/never.png" alt="never"></body></html>',
  '/never.png': 'hang',
  '/pay': { status: 402, body: '<html><head><title>Pay first</title></head><body><h1>Payment required</h1></body></html>' },
  '/untitled': '<html><body>no title here</body></html>',
  '/broken': { status: 500, body: '<html><head><title>Oops</title></head><body>server fell over</body></html>' },
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/navigation/lead');
});

describe('navigation answers once the page is usable', () => {
  it('navigate_back to a page the back/forward cache restores answers with that page as it was restored', async () => {
    await a.call('browser_navigate', { url: `${pages.origin}/first` });
    await a.call('browser_navigate', { url: `${pages.origin}/second` });
    const r = await a.call('browser_navigate_back');
    expect(r.isError).toBe(false);
    expect(r.text).toContain(`${pages.origin}/first`);
    // The cache did restore it (this is the case whose load event never comes again), and the
    // answer is the page as restored, not as it is seconds later.
    expect(r.text).toContain('· First (restored) ·');
  });

  it('navigate_back with no earlier page says so and stays', async () => {
    await a.call('browser_tabs', { action: 'new' });
    const r = await a.call('browser_navigate_back');
    expect(r.isError).toBe(false);
    expect(r.text).toContain('no earlier page');
    await a.call('browser_tabs', { action: 'close' });
  });

  it('a page whose one image never arrives answers without an error, saying it is still loading', async () => {
    const r = await a.call('browser_navigate', { url: `${pages.origin}/slow-image` });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('Usable');
    expect(r.text).toContain('still loading');
  });

  it('a 404 page is answered with its status and the page it sent', async () => {
    const r = await a.call('browser_navigate', { url: `${pages.origin}/nowhere` });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/HTTP status: 404/);
    expect(r.text).toContain('No such page');
  });

  it('402 and 500 are answered with their status too', async () => {
    expect((await a.call('browser_navigate', { url: `${pages.origin}/pay` })).text).toMatch(/HTTP status: 402[^\n]*[\s\S]*Payment required/);
    expect((await a.call('browser_navigate', { url: `${pages.origin}/broken` })).text).toMatch(/HTTP status: 500/);
  });

  it('a page that loaded whole says nothing about its status', async () => {
    const r = await a.call('browser_navigate', { url: `${pages.origin}/second` });
    expect(r.text).not.toContain('HTTP status');
    expect(r.text).not.toContain('still loading');
  });
});

describe('the tab list', () => {
  it('names a page with no title as untitled and gives its address once, not its address as its title', async () => {
    await a.call('browser_navigate', { url: `${pages.origin}/untitled` });
    const list = (await a.call('browser_tabs', { action: 'list' })).text;
    expect(list).toContain(`(current) (no title) · ${pages.origin}/untitled · page p-`);
  });

  it('shows a long data: URL by its start and length, on the page line and in the list, and the tab holds it whole', async () => {
    const url = `data:text/html,<title>Inline</title>${'<p>filler paragraph</p>'.repeat(40)}`;
    const r = await a.call('browser_navigate', { url });
    const cut = `${url.slice(0, 100)}… (a data: URL of ${url.length} characters)`;
    expect(r.text).toContain(`· Inline · ${cut}\n`);
    expect(r.text).not.toContain(url);
    expect((await a.call('browser_tabs', { action: 'list' })).text).toContain(`(current) Inline · ${cut} · page p-`);
    expect((await a.call('browser_evaluate', { function: '() => location.href.length' })).text).toContain(String(url.length));
  });

  it('cuts a long data: URL that Chromium writes into a console line, in the message and in its place', async () => {
    const url = `data:text/html,<title>Logs</title>${'<p>filler</p>'.repeat(20)}<script>console.error("broke on", location.href); location.href = location.href + "-again"</script>`;
    await a.call('browser_navigate', { url });
    const r = await a.call('browser_console_messages', { level: 'error' });
    const cut = `… (a data: URL of ${url.length} characters)`;
    expect(r.text).toContain(`- [error] broke on data:text/html,<title>Logs</title>`);
    // Chromium refuses the page's own move to a data: URL, naming it and the place it came from.
    expect(r.text).toContain('- [error] Not allowed to navigate top frame to data URL: data:text/html,');
    expect(r.text).toContain(`… (a data: URL of ${url.length + '-again'.length} characters) @ data:text/html,`);
    expect(r.text).toMatch(new RegExp(`${cut.replace(/[()]/g, '\\$&')}:\\d+`));
    expect(r.text).not.toContain(url.slice(0, 150));
  });
});
