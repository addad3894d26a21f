import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { forgeTest, type TestPages } from './fixtures.js';

let app: TestPages;
let idp: PageServer;
let a: Agent;

const it = forgeTest();

it.beforeAll(async ({ pages, agentFor }) => {
  // Two local origins: the app on 127.0.0.1, the sign-in provider on localhost.
  idp = await servePages({
    '/auth': () => `<title>Provider</title><button onclick="window.opener.postMessage({ token: 'tok-123', opener: !!window.opener }, '*'); window.close()">Approve</button>`,
  }, 'localhost');
  app = pages;
  app.route('/', () => `<title>App</title><script>
      window.addEventListener('message', (e) => { if (e.origin === ${JSON.stringify(idp.origin)}) document.title = 'signed in:' + e.data.token; });
    </script><button onclick='window.open(${JSON.stringify(idp.origin + '/auth')}, "auth", "width=500,height=600")'>Sign in</button>`);
  app.route('/p', '<title>popup</title>popup');
  a = await agentFor('default/app/lead');
});

it.afterAll(async () => {
  await idp?.close();
});

function refOf(text: string, name: string): string {
  return new RegExp(`button "${name}" \\[ref=((?:f\\d+)?e\\d+)\\]`).exec(text)![1];
}

describe('popups are tabs of the opener\'s seat', () => {
  it('a cross-origin sign-in popup becomes the current tab, posts its result to the opener, and closing hands the seat back', async () => {
    const home = await a.call('browser_navigate', { url: app.url });
    const opened = await a.call('browser_click', { ref: refOf(home.text, 'Sign in') });
    expect(opened.text).toMatch(/opened a popup: tab \d+ \(p-[0-9a-f]{8}\), now your current tab/);
    const popup = await a.call('browser_snapshot');
    expect(popup.text).toContain('Provider');
    const list = await a.call('browser_tabs', { action: 'list' });
    expect(list.text).toMatch(/\(current\) Provider .* owner default\/app\/lead/);
    await a.call('browser_click', { ref: refOf(popup.text, 'Approve') });
    const back = await a.call('browser_evaluate', { function: '() => document.title' });
    expect(back.text).toContain('"signed in:tok-123"');
    expect(back.text).toContain('· signed in:tok-123 ·');
  });

  it('one page may hold 16 popups; the 17th is refused in words', async () => {
    await a.call('browser_tabs', { action: 'new', url: app.url });
    const r = await a.call('browser_evaluate', { function: `() => { for (let i = 0; i < 17; i++) window.open('/p?' + i, 'w' + i); return 'asked'; }` });
    expect(r.isError).toBe(false);
    let notice = r.text;
    const deadline = Date.now() + 20_000;
    while (!notice.includes('already holds 16 popups') && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 300));
      const list = await a.call('browser_tabs', { action: 'list' });
      const opener = /- (\d+): [^\n]*App/.exec(list.text)?.[1];
      if (opener) notice = (await a.call('browser_tabs', { action: 'select', index: Number(opener) })).text + (await a.call('browser_snapshot')).text;
    }
    expect(notice).toContain('already holds 16 popups; another window.open was refused');
    const list = await a.call('browser_tabs', { action: 'list' });
    expect((list.text.match(/\/p\?\d+ · page p-/g) ?? []).length).toBe(16);
  });
});
