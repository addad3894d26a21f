import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { forgeTest, type TestPages } from './fixtures.js';

let forge: RunningServer;
let pages: TestPages;
let agent: Agent;
let a: TestViewer;
let b: TestViewer;

const page = `<title>Board</title><style>body{margin:0} #go{position:absolute;left:100px;top:100px;width:200px;height:100px}
#box{position:absolute;left:0;top:300px;width:60px;height:60px;background:#c33}</style>
<button id="go" onclick="if (event.isTrusted) document.title = 'pressed ' + (++window.n)">Go</button><div id="box"></div>
<input id="field" style="position:absolute;left:400px;top:100px;width:200px">
<script>window.n = 0; let x = 0; setInterval(() => { x = (x + 7) % 600; document.getElementById('box').style.left = x + 'px'; }, 16);</script>`;

const it = forgeTest({}, { '/': page, '/second': '<title>Second</title><p>second</p>' });

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  agent = await agentFor('default/view/lead');
  await agent.call('browser_navigate', { url: pages.url });
  a = await openViewer(forge.info.port, forge.info.viewer_token);
  b = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await a?.close();
  await b?.close();
});

const title = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => document.title' })).text;

describe('viewers and the controller role', () => {
  it('a viewer sees the profile\'s tabs and, attached, gets the tab\'s frames as a watcher', async () => {
    a.send({ t: 'tabs' });
    const tabs = await a.next('tabs');
    expect(tabs.profile).toBe('default/default');
    expect((tabs.tabs as unknown[]).length).toBe(1);
    a.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    const view = await a.next('view');
    expect(view).toMatchObject({ tab: 1, controller: null, width: 800, height: 600, profile: 'default/default' });
    expect(view.you).toBeGreaterThan(0);
    await a.waitFrames(1);
    expect(a.frames[0].flags & 1).toBe(1); // the first frame is a keyframe
    expect(a.frames[0].frameW).toBe(800);
    // The page animates: pictures keep coming (a picture may come in several bands of one seq).
    const seqs = (): number => new Set(a.frames.map((f) => f.seq)).size;
    for (let n = a.frames.length + 1; seqs() <= 3 && n < 200; n++) await a.waitFrames(n);
    expect(seqs()).toBeGreaterThan(3);
  });

  it('a second watcher never moves the page under the first', async () => {
    b.send({ t: 'attach', tab: 1, w: 1024, h: 700 });
    const view = await b.next('view');
    expect(view).toMatchObject({ controller: null, width: 800, height: 600 });
  });

  it('a watcher\'s input and arrows are refused by the server', async () => {
    b.send({ t: 'input', ev: { type: 'mouse', action: 'down', x: 150, y: 150, button: 'left', clickCount: 1 } });
    expect((await b.next('error')).message).toBe('you are watching tab 1; take control before driving the page');
    b.send({ t: 'nav', dir: 'back' });
    expect((await b.next('error')).message).toContain('take control before moving through the page\'s history');
  });

  it('take control moves the role, every viewer is told, and the page is laid out at the controller\'s surface', async () => {
    b.send({ t: 'control', take: true });
    const vb = await b.next('view', (m) => m.controller !== null);
    const va = await a.next('view', (m) => m.controller !== null);
    expect(vb.controller).toBe(vb.you);
    expect(va.controller).toBe(vb.you);
    expect(vb).toMatchObject({ width: 1024, height: 700 });
    await b.waitFrames(b.frames.length + 3);
    expect(b.frames[b.frames.length - 1].frameW).toBe(1024);
  });

  it('the controller\'s click is a trusted click on the real button; the previous holder became a watcher', async () => {
    const before = await title();
    for (const action of ['down', 'up'] as const) b.send({ t: 'input', ev: { type: 'mouse', action, x: 150, y: 150, button: 'left', clickCount: 1 } });
    await expect.poll(title, { timeout: 10_000 }).toContain('pressed 1');
    expect(before).not.toContain('pressed');
    a.send({ t: 'control', take: true });
    await b.next('view', (m) => m.controller !== m.you);
    b.send({ t: 'input', ev: { type: 'mouse', action: 'down', x: 150, y: 150 } });
    expect((await b.next('error')).message).toContain('you are watching');
  });

  it('typed text and named keys reach the page as trusted input', async () => {
    a.send({ t: 'input', ev: { type: 'mouse', action: 'down', x: 450, y: 110, button: 'left', clickCount: 1 } });
    a.send({ t: 'input', ev: { type: 'mouse', action: 'up', x: 450, y: 110, button: 'left', clickCount: 1 } });
    a.send({ t: 'input', ev: { type: 'text', text: 'hello' } });
    a.send({ t: 'input', ev: { type: 'key', action: 'down', key: 'Backspace' } });
    a.send({ t: 'input', ev: { type: 'key', action: 'up', key: 'Backspace' } });
    const field = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => document.getElementById("field").value' })).text;
    await expect.poll(field, { timeout: 10_000 }).toContain('"hell"');
  });

  it('the arrows follow the page\'s own history and the controller moves through it', async () => {
    await agent.call('browser_navigate', { url: `${pages.origin}/second` });
    const h = await a.next('history', (m) => m.back === true && m.forward === false);
    expect(h.back).toBe(true);
    a.send({ t: 'nav', dir: 'back' });
    const back = await a.next('history', (m) => m.forward === true);
    expect(back.forward).toBe(true);
    const path = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => location.pathname' })).text;
    expect(await path()).toContain('"/"');
    a.send({ t: 'nav', dir: 'forward' });
    const fwd = await a.next('history', (m) => m.forward === false);
    expect(fwd.back).toBe(true);
    expect(await path()).toContain('"/second"');
  });

  it('release gives the role back to nobody', async () => {
    a.send({ t: 'control', take: false });
    const v = await a.next('view', (m) => m.controller === null);
    expect(v.controller).toBeNull();
  });

  it('a tab the agent closes is gone for its viewers, in words', async () => {
    await agent.call('browser_close');
    const gone = await a.next('gone');
    expect(gone.message).toBe('tab 1 is not open');
    a.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    expect((await a.next('error')).message).toBe('the profile has no tab to show yet');
  });
});
