import { describe, expect } from 'vitest';
import { handOff, type Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let agent: Agent;
let person: TestViewer;
let pageId = '';

/** A sign-in page whose one button, where the person clicks, signs them in. */
const LOGIN = `<html><head><title>Sign in</title><style>body{margin:0}#go{position:absolute;left:100px;top:120px;width:200px;height:60px}</style></head><body>
  <main><h1>Welcome</h1><p id="state">Signed out</p>
  <ul>${Array.from({ length: 40 }, (_, i) => `<li>Item ${i + 1}</li>`).join('')}</ul></main>
  <button id="go" onclick="document.getElementById('state').textContent = 'Signed in as Ada'; document.title = 'Account'">Sign in</button>
</body></html>`;

const it = toolPagesTest({}, { '/': LOGIN });

it.beforeAll(async ({ forge, toolPages, agentFor }) => {
  pages = toolPages;
  agent = await agentFor('default/shop/lead');
  await agent.call('browser_navigate', { url: pages.url });
  pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1];
  person = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await person?.close();
});

describe('a hand-off\'s answer says what the person changed while they held the page', () => {
  it('Done answers the page\'s URL and title and the changes since the hand-off, not the whole page', async () => {
    const call = handOff(agent, pageId, 'Please sign in');
    const ask = ((await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1)).asks as Array<Record<string, unknown>>)[0];
    person.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await person.next('view');
    person.send({ t: 'control', take: true });
    await person.next('view', (m) => m.controller !== null && m.controller === m.you);
    for (const action of ['down', 'up'] as const) person.send({ t: 'input', ev: { type: 'mouse', action, x: 200, y: 150, button: 'left', clickCount: 1 } });
    // The click has landed once the page says so.
    for (let i = 0; i < 50; i++) {
      const t = (await agent.call('browser_tabs', { action: 'list' })).text;
      if (t.includes('Account')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'done' });
    const r = await call;
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('The person answered Done on tab 1');
    expect(r.text).toContain(`· Account · ${pages.url}`);
    expect(r.text).toMatch(/Page changes since your last snapshot of this tab \([^)]*\d+ unchanged/);
    expect(r.text).toMatch(/[+~] .*Signed in as Ada/);
    // Forty unchanged items are counted, not sent again.
    expect(r.text).not.toContain('Item 17');
    expect(r.text).not.toContain('take a browser_snapshot before going on');
  });

  it('a hand-off the person leaves untouched answers that nothing changed', async () => {
    const call = handOff(agent, pageId, 'Check it');
    const ask = ((await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1)).asks as Array<Record<string, unknown>>)[0];
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'not_now' });
    const r = await call;
    expect(r.text).toContain('The person answered Not now on tab 1');
    expect(r.text).toContain('unchanged since your last snapshot of this tab');
  });
});
