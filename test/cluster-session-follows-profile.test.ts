/**
 * An MCP session follows its profile: one that began on a node before another node took its
 * profile is served by that node from its next call on, not refused; and one whose serving node
 * was killed goes on where the profile is placed next, its first answer saying once that the
 * tabs it had there were lost. The agent keeps its session id throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, startForge, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';
import { clusterToml } from './helpers/nats.js';

let cluster: TestCluster<'beta'>;
let alpha: RunningServer;
let beta: RunningServer;
let gamma: RunningServer;
let pages: PageServer;
let early: Agent;
let earlySession: string | undefined;
const agents: Agent[] = [];

const sessionOf = (a: Agent): string | undefined => (a.client.transport as { sessionId?: string } | undefined)?.sessionId;

async function heard(node: RunningServer, line: string): Promise<void> {
  for (let i = 0; i < 100 && !node.output().includes(line); i++) await new Promise((r) => setTimeout(r, 50));
  expect(node.output()).toContain(line);
}

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Moved</title><p>moved</p>' });
  // beta hosts no browser, and no node that does is in the cluster yet: a session opened there is
  // beta's own (with a node that hosts browsers in it, beta would place the profile there at once).
  cluster = await startCluster(['beta'], { roles: { beta: ['terminal', 'viewer', 'mcp'] } });
  beta = cluster.nodes.beta;
  early = await connectAgent(beta, 'default/early/lead');
  [alpha, gamma] = await Promise.all(['alpha', 'gamma'].map((n) => startForge({ toml: clusterToml(cluster.nats, n) })));
  earlySession = sessionOf(early);
  expect((await early.client.listTools()).tools.length).toBeGreaterThan(0);
  // Then alpha takes the profile.
  const lead = await connectAgent(alpha, 'default/proj/lead');
  agents.push(lead);
  expect((await lead.call('browser_navigate', { url: pages.url })).isError).toBe(false);
});

afterAll(async () => {
  for (const a of [early, ...agents]) await a?.close().catch(() => undefined);
  await Promise.allSettled([alpha, gamma].filter(Boolean).map((n) => n.stop()));
  await cluster?.stop();
  await pages?.close();
});

describe('a session opened before another node took its profile', () => {
  it('has its next call answered by the node that took the profile, under the same session id', async () => {
    const r = await early.call('browser_navigate', { url: `${pages.url}?early` });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('?early');
    expect((await early.call('browser_evaluate', { function: '() => location.search' })).text).toContain('?early');
    expect((await agents[0]!.call('browser_tabs', { action: 'list' })).text).toContain('default/early/lead');
    expect(sessionOf(early)).toBe(earlySession);
  });

  it('after alpha is killed with -9, goes on where the profile is placed next, saying once that its tabs were lost', async () => {
    alpha.proc.kill('SIGKILL');
    await heard(gamma, 'node alpha stopped answering');
    await heard(beta, 'node alpha stopped answering');
    const third = await connectAgent(gamma, 'default/third/lead');
    agents.push(third);
    expect((await third.call('browser_navigate', { url: pages.url })).isError).toBe(false);
    const r = await early.call('browser_navigate', { url: `${pages.url}?again` });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('node alpha serving this MCP session stopped answering, and the tabs it held for this session were lost; the session goes on on node gamma');
    expect(r.text).toContain('?again');
    const list = await early.call('browser_tabs', { action: 'list' });
    expect(list.text).toContain('?again');
    expect(list.text).not.toContain('stopped answering');
    expect((await third.call('browser_tabs', { action: 'list' })).text).toContain('default/early/lead');
    expect(sessionOf(early)).toBe(earlySession);
  });
});
