import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';

let cluster: TestCluster<'alpha' | 'beta'>;
let alpha: RunningServer;
let beta: RunningServer;
let pages: PageServer;
let agent: Agent;
let remote: TestViewer;
let local: TestViewer;

const page = `<title>Counter</title><style>body{margin:0} #go{position:absolute;left:100px;top:100px;width:200px;height:100px}</style>
<button id="go" onclick="if (event.isTrusted) window.clicks++">Go</button>
<input id="field" style="position:absolute;left:400px;top:100px;width:200px"><script>window.clicks = 0;</script>`;

beforeAll(async () => {
  pages = await servePages({ '/': page });
  cluster = await startCluster(['alpha', 'beta']);
  ({ alpha, beta } = cluster.nodes);
  agent = await connectAgent(alpha, 'default/proj/lead');
  expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  remote = await openViewer(beta.info.port, beta.info.viewer_token);
  local = await openViewer(alpha.info.port, alpha.info.viewer_token);
});

afterAll(async () => {
  await remote?.close();
  await local?.close();
  await agent?.close();
  await cluster?.stop();
  await pages?.close();
});

const clicks = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => window.clicks' })).text;

describe('control from another node is decided where the tab is hosted', () => {
  it('a watcher on beta is refused input by alpha\'s rules, in the same words', async () => {
    for (const v of [local, remote]) v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await Promise.all([local.next('view'), remote.next('view')]);
    remote.send({ t: 'input', ev: { type: 'mouse', action: 'down', x: 150, y: 150, button: 'left', clickCount: 1 } });
    expect((await remote.next('error')).message).toBe('you are watching tab 1; take control before driving the page');
  });

  it('taking control on beta moves the role for every viewer, on both nodes', async () => {
    remote.send({ t: 'control', take: true });
    const vr = await remote.next('view', (m) => m.controller !== null);
    const vl = await local.next('view', (m) => m.controller !== null);
    expect(vr.controller).toBe(vr.you);
    expect(vl.controller).toBe(vr.you);
    expect(vl.you).not.toBe(vr.you);
  });

  it('a click through beta presses the real button on alpha\'s page, and typing arrives in order', async () => {
    expect(await clicks()).toContain('0');
    for (const action of ['down', 'up'] as const) remote.send({ t: 'input', ev: { type: 'mouse', action, x: 150, y: 150, button: 'left', clickCount: 1 } });
    for (const action of ['down', 'up'] as const) remote.send({ t: 'input', ev: { type: 'mouse', action, x: 450, y: 110, button: 'left', clickCount: 1 } });
    for (const ch of 'ordered') remote.send({ t: 'input', ev: { type: 'text', text: ch } });
    const deadline = Date.now() + 5_000;
    let value = '';
    while (Date.now() < deadline) {
      value = (await agent.call('browser_evaluate', { function: '() => document.getElementById("field").value' })).text;
      if (value.includes('"ordered"')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(value).toContain('"ordered"');
    expect(await clicks()).toContain('1');
  });

  it('the viewer on alpha, now a watcher, is refused input; beta\'s viewer leaving gives the role back', async () => {
    local.send({ t: 'input', ev: { type: 'mouse', action: 'down', x: 150, y: 150 } });
    expect((await local.next('error')).message).toContain('you are watching');
    await remote.close();
    const v = await local.next('view', (m) => m.controller === null);
    expect(v.controller).toBeNull();
  });
});
