/**
 * nats-server restarted under three nodes: while it is down, node alpha's own agent keeps working
 * (a node never needs NATS for what it holds); once it is back, the nodes join again by
 * themselves, alpha still hosts the profile, and the viewer on gamma kept its socket and gets
 * the tab's new frames.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';

const SEAT = 'default/proj/lead';
/** Longer than a node's silence limit (1.5 s): a node that judged silence while itself cut off would call the others dead. */
const DOWN_MS = 2_500;

let cluster: TestCluster<'alpha' | 'beta' | 'gamma'>;
let alpha: RunningServer;
let beta: RunningServer;
let gamma: RunningServer;
let pages: PageServer;
let agent: Agent;
let watcher: TestViewer;
let closedWith: string | undefined;

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Before</title><body style="background:#fff">before</body>' });
  cluster = await startCluster(['alpha', 'beta', 'gamma']);
  ({ alpha, beta, gamma } = cluster.nodes);
  agent = await connectAgent(alpha, SEAT);
  expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  watcher = await openViewer(gamma.info.port, gamma.info.viewer_token);
  watcher.ws.once('close', (code, reason) => { closedWith = `${code} ${reason.toString()}`; });
  watcher.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  expect((await watcher.next('view')).title).toBe('Before');
  await watcher.waitFrames(1);
});

afterAll(async () => {
  await watcher?.close();
  await agent?.close();
  await cluster?.stop();
  await pages?.close();
});

/**
 * An agent connected to beta just after the restart. Its first request may meet the nodes before
 * they have all heard each other again: it is then answered in words, "node alpha did not answer
 * within 30 s; call again" (seen once in a whole-suite run, never alone), and the call again is
 * served. An answer in other words fails the test.
 */
async function agentAfterRestart(): Promise<Agent> {
  try {
    return await connectAgent(beta, 'default/shop/lead');
  } catch (e) {
    expect(String(e)).toContain('did not answer within 30 s; call again');
    return connectAgent(beta, 'default/shop/lead');
  }
}

describe('nats-server restarted under the nodes', () => {
  it('while NATS is down, the agent on the hosting node drives its tab as before', async () => {
    await cluster.nats.pause();
    const r = await agent.call('browser_evaluate', { function: '() => { document.title = "During"; document.body.style.background = "#000"; return document.title; }' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('During');
    const t = await agent.call('terminal__run', { command: 'echo offline-$((6*7))' });
    expect(t.text).toContain('offline-42');
    await new Promise((r) => setTimeout(r, DOWN_MS));
    await cluster.nats.start();
  });

  it('once it is back, the viewer on gamma kept its socket and gets the tab\'s frames again', async () => {
    const from = watcher.frames.length;
    const end = Date.now() + 20_000;
    // Frames flow again once the nodes rejoin: a change on the page is painted through the hop.
    while (watcher.frames.length <= from && Date.now() < end) {
      await agent.call('browser_evaluate', { function: '() => { document.body.style.background = document.body.style.background === "rgb(0, 0, 0)" ? "#fff" : "#000"; }' });
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(watcher.frames.length).toBeGreaterThan(from);
    expect(closedWith).toBeUndefined();
  });

  it('alpha still hosts the profile: an agent on beta is served there, and a new viewer on beta is served by alpha', { timeout: 120_000 }, async () => {
    const b = await agentAfterRestart();
    try {
      const r = await b.call('browser_navigate', { url: pages.url });
      expect(r.isError).toBe(false);
      expect(beta.output()).not.toContain('browser host started');
    } finally {
      await b.close();
    }
    const v = await openViewer(beta.info.port, beta.info.viewer_token);
    try {
      // Beta hosts no browser: a view and its frames come from alpha only.
      v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
      expect((await v.next('view')).title).toMatch(/Before|During/);
      await v.waitFrames(1);
    } finally {
      await v.close();
    }
  });
});
