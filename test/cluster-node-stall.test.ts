/**
 * A node that stalls is not a dead node: with beta's process stopped for longer than the silence
 * that means death, then let go, beta reads the beats alpha sent meanwhile before it looks for
 * silence, and its viewer of alpha's tab stays open; alpha stopped for a second is not dead either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';
import { NODE_SILENT_MS, PRESENCE_PERIOD_MS } from '../src/main/cluster/presence.js';

let cluster: TestCluster<'alpha' | 'beta'>;
let alpha: RunningServer;
let beta: RunningServer;
let pages: PageServer;
let agent: Agent;
let viewer: TestViewer;
let closedWith: { code: number; reason: string } | undefined;

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Stops a node's whole process (every thread) for `ms`, then lets it go on. */
async function stall(s: RunningServer, ms: number): Promise<void> {
  s.proc.kill('SIGSTOP');
  await pause(ms);
  s.proc.kill('SIGCONT');
}

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Busy</title><p>busy</p>' });
  cluster = await startCluster(['alpha', 'beta']);
  ({ alpha, beta } = cluster.nodes);
  agent = await connectAgent(alpha, 'default/proj/lead');
  expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  viewer = await openViewer(beta.info.port, beta.info.viewer_token);
  viewer.ws.once('close', (code, reason) => { closedWith = { code, reason: reason.toString() }; });
  viewer.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  await viewer.next('view');
  await viewer.waitFrames(1);
});

afterAll(async () => {
  await viewer?.close();
  await agent?.close().catch(() => undefined);
  await cluster?.stop();
  await pages?.close();
});

describe('a stalled node is not taken for dead', () => {
  it('beta stopped past the silence that means death, then let go, still hears alpha and keeps its viewer', async () => {
    await stall(beta, NODE_SILENT_MS + 500);
    await pause(4 * PRESENCE_PERIOD_MS);
    expect(closedWith).toBeUndefined();
    expect(beta.output()).not.toContain('node alpha stopped answering');
  });

  it('alpha stopped for a second is still alive to beta', async () => {
    await stall(alpha, NODE_SILENT_MS - PRESENCE_PERIOD_MS - 100);
    await pause(4 * PRESENCE_PERIOD_MS);
    expect(closedWith).toBeUndefined();
    expect(beta.output()).not.toContain('node alpha stopped answering');
  });
});
