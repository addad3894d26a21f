/**
 * A node that hosts no browsers (its [cluster] roles leave "browser" out) places a profile no node
 * hosts on the node that hosts browsers and the fewest profiles: an agent reaching it is served,
 * not refused, and a node added to the cluster takes the next profiles. A node that hosts browsers
 * keeps a free profile that reaches it among equals, and places it on a node holding fewer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';

let cluster: TestCluster<'alpha' | 'front' | 'gamma'>;
let alpha: RunningServer;
let front: RunningServer;
let gamma: RunningServer;
let pages: PageServer;
const agents: Agent[] = [];

/** The profiles node `n` logged taking the lease of. */
function leasesTaken(n: RunningServer): string[] {
  return n.output().split('\n').filter((l) => l.includes('"profile lease taken"')).map((l) => (JSON.parse(l) as { profile: string }).profile);
}

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Placed</title><p>placed</p>' });
  cluster = await startCluster(['alpha', 'front', 'gamma'], {
    roles: { front: ['viewer', 'mcp'] },
    toml: '[projects.blog]\nbrowser_profile = "blog"\n[projects.shop]\nbrowser_profile = "shop"\n[projects.docs]\nbrowser_profile = "docs"\n',
  });
  ({ alpha, front, gamma } = cluster.nodes);
});

afterAll(async () => {
  for (const a of agents) await a.close().catch(() => undefined);
  await cluster?.stop();
  await pages?.close();
});

describe('placing a profile from a node that hosts no browsers', () => {
  it('an agent reaching a node without browsers is served by a node with them, not refused', async () => {
    const a = await connectAgent(front, 'default/proj/lead');
    agents.push(a);
    const r = await a.call('browser_navigate', { url: pages.url });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Placed');
    // Placed on one node with browsers; the front node started no host and took no lease.
    const on = [alpha, gamma].filter((n) => leasesTaken(n).includes('default/default'));
    expect(on).toHaveLength(1);
    expect(leasesTaken(front)).toEqual([]);
    expect(front.output()).not.toContain('browser host started');
  });

  it('the next profile goes to the node with browsers that hosts fewer profiles', async () => {
    const first = leasesTaken(alpha).includes('default/default') ? alpha : gamma;
    const other = first === alpha ? gamma : alpha;
    const b = await connectAgent(front, 'default/blog/lead');
    agents.push(b);
    const r = await b.call('browser_navigate', { url: `${pages.url}?blog` });
    expect(r.isError, r.text).toBe(false);
    expect(leasesTaken(other)).toEqual(['default/blog']);
    expect(leasesTaken(first)).toEqual(['default/default']);
  });

  it('a person on the node without browsers watches the tab where it was placed', async () => {
    const person = await openViewer(front.info.port, front.info.viewer_token);
    try {
      person.send({ t: 'attach', tab: 1, w: 800, h: 600 });
      expect((await person.next('view')).title).toBe('Placed');
      await person.waitFrames(1);
    } finally {
      await person.close();
    }
  });

  it('a node with browsers keeps a free profile while no node holds fewer, and places it on one that does', async () => {
    const first = leasesTaken(alpha).includes('default/default') ? alpha : gamma;
    const other = first === alpha ? gamma : alpha;
    // One profile each: the node the agent reached keeps the third.
    const c = await connectAgent(first, 'default/shop/lead');
    agents.push(c);
    const r1 = await c.call('browser_navigate', { url: `${pages.url}?shop` });
    expect(r1.isError, r1.text).toBe(false);
    expect(leasesTaken(first)).toEqual(['default/default', 'default/shop']);
    // Two against one: the fourth reaching the same node goes to the other.
    const d = await connectAgent(first, 'default/docs/lead');
    agents.push(d);
    const r2 = await d.call('browser_navigate', { url: `${pages.url}?docs` });
    expect(r2.isError, r2.text).toBe(false);
    expect(r2.text).toContain('Placed');
    expect(leasesTaken(other)).toEqual(['default/blog', 'default/docs']);
    expect(leasesTaken(first)).toEqual(['default/default', 'default/shop']);
  });
});
