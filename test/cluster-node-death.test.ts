import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';

let cluster: TestCluster<'alpha' | 'beta'>;
let alpha: RunningServer;
let beta: RunningServer;
let pages: PageServer;
const agents: Agent[] = [];
const viewers: TestViewer[] = [];

/** What the issue promises a viewer of a dead node's tab: a sentence within 2 s. */
const SENTENCE_WAIT_MS = 2_000;

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Placed</title><p>placed</p>' });
  cluster = await startCluster(['alpha', 'beta']);
  ({ alpha, beta } = cluster.nodes);
  const a = await connectAgent(alpha, 'default/proj/lead');
  agents.push(a);
  expect((await a.call('browser_navigate', { url: pages.url })).isError).toBe(false);
});

afterAll(async () => {
  for (const v of viewers) await v.close();
  for (const a of agents) await a.close().catch(() => undefined);
  await cluster?.stop();
  await pages?.close();
});

describe('a node killed with kill -9', () => {
  it('a viewer on another node of the dead node\'s tab is closed with a sentence naming it, and its client may reconnect', async () => {
    const v = await openViewer(beta.info.port, beta.info.viewer_token);
    viewers.push(v);
    v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await v.next('view');
    await v.waitFrames(1);
    const closed = new Promise<{ code: number; reason: string }>((r) => v.ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    alpha.proc.kill('SIGKILL');
    const c = await Promise.race([closed, new Promise<undefined>((r) => setTimeout(r, SENTENCE_WAIT_MS))]);
    expect(c).toEqual({ code: 1012, reason: 'node alpha hosting this profile stopped answering; reconnecting' });
  });

  it('the next agent call on a surviving node places the profile there', async () => {
    const b = await connectAgent(beta, 'default/proj/lead');
    agents.push(b);
    const r = await b.call('browser_navigate', { url: pages.url });
    expect(r.isError).toBe(false);
    // Taken over from the silent node at once, or taken anew had its lease lapsed meanwhile.
    expect(beta.output()).toMatch(/profile lease taken/);
  });

  it('a viewer reconnecting to the surviving node sees the profile where it is now', async () => {
    const v = await openViewer(beta.info.port, beta.info.viewer_token);
    viewers.push(v);
    v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    const view = await v.next('view');
    expect(view.title).toBe('Placed');
    await v.waitFrames(1);
  });
});
