import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

let forge: RunningServer;
let pages: TestPages;
let agent: Agent;
let v: TestViewer;

const it = forgeTest();

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  pages.route('/', '<title>Opener</title><button onclick="window.open(\'/popup\', \'p\', \'width=600,height=500\')">Sign in</button>');
  pages.route('/popup', '<title>Popup</title><button onclick="window.close()">Done</button>');
  agent = await agentFor('default/pop/lead');
  await agent.call('browser_navigate', { url: pages.url });
  v = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await v?.close();
});

describe('the takeover follows a popup in', () => {
  it('a surface showing the opener moves to the popup when it appears, keeping its role, and back when it closes', async () => {
    v.send({ t: 'attach', w: 900, h: 700 });
    const first = await v.next('view');
    v.send({ t: 'control', take: true });
    await v.next('view', (m) => m.controller === m.you);
    await agent.call('browser_click', { ref: 'role=button[name="Sign in"]' });
    const onPopup = await v.next('view', (m) => m.pageId !== first.pageId && m.controller === m.you);
    expect(onPopup.title === 'Popup' || String(onPopup.url).endsWith('/popup')).toBe(true);
    await agent.call('browser_click', { ref: 'role=button[name="Done"]' });
    const back = await v.next('view', (m) => m.pageId === first.pageId);
    expect(back.tab).toBe(first.tab);
    expect(v.messages.some((m) => m.t === 'gone')).toBe(false);
  });
});
