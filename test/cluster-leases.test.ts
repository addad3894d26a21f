import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';

let cluster: TestCluster<'alpha' | 'beta'>;
let alpha: RunningServer;
let beta: RunningServer;
let pages: PageServer;
const agents: Agent[] = [];

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Placed</title><p>placed</p>' });
  cluster = await startCluster(['alpha', 'beta']);
  ({ alpha, beta } = cluster.nodes);
});

afterAll(async () => {
  for (const a of agents) await a.close().catch(() => undefined);
  await cluster?.stop();
  await pages?.close();
});

describe('placement: one node hosts a profile, the one holding its lease', () => {
  it('the first node to need the profile hosts it; an agent on another node is served there and starts no second browser', async () => {
    const a = await connectAgent(alpha, 'default/proj/lead');
    agents.push(a);
    const r = await a.call('browser_navigate', { url: pages.url });
    expect(r.isError).toBe(false);
    const b = await connectAgent(beta, 'default/other/lead');
    agents.push(b);
    const served = await b.call('browser_navigate', { url: pages.url });
    expect(served.isError).toBe(false);
    expect((await a.call('browser_tabs', { action: 'list' })).text).toMatch(/default\/other\/lead/);
    expect(beta.output()).not.toContain('browser host started');
  });

  it('a node that stops gives its leases back, and the next call on another node places the profile there', async () => {
    await agents[0]!.close();
    await alpha.stop();
    // The agent on beta was served by alpha: its session goes on on beta, which it is told once.
    const r = await agents[1]!.call('browser_navigate', { url: pages.url });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('node alpha serving this MCP session stopped answering, and the tabs it held for this session were lost; the session goes on on node beta');
    expect(beta.output()).toContain('browser host started');
  });
});
