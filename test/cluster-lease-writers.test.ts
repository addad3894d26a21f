/**
 * A node writes only its own leases. Each node joins NATS as its own user: nats-server refuses
 * beta's credential writing or deleting alpha's record of holding a profile, and purging or
 * deleting the lease bucket; and a lease written over alpha's with beta's credential (in beta's
 * name or another node's, which NATS cannot refuse) does not move the profile: alpha takes it
 * back, and agents on every node are still served by alpha's browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';
import { violations } from './helpers/nats.js';

const PROFILE = 'default/default';
let cluster: TestCluster;
let alpha: RunningServer;
let gamma: RunningServer;
let pages: PageServer;
let lead: Agent;
let nc: NatsConnection;
let kv: KV;
const agents: Agent[] = [];

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Kept</title><p>kept</p>' });
  cluster = await startCluster(['alpha', 'beta', 'gamma'], { users: true });
  ({ alpha, gamma } = cluster.nodes as Record<'alpha' | 'gamma', RunningServer>);
  lead = await connectAgent(alpha, 'default/proj/lead');
  expect((await lead.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  nc = await connect({ servers: cluster.nats.url, user: 'beta', pass: cluster.nats.passwords!.beta! });
  kv = await new Kvm(nc).open('forge_leases');
});

afterAll(async () => {
  await nc?.close();
  for (const a of [lead, ...agents]) await a?.close().catch(() => undefined);
  await cluster?.stop();
  await pages?.close();
});

describe('a node writes only its own leases', () => {
  it('nats-server refuses beta\'s credential writing or deleting alpha\'s record of holding the profile, and purging or deleting the lease bucket', async () => {
    // Each refused ask gets no answer: a second is long enough to hear the refusals.
    const within = (p: Promise<unknown>): Promise<unknown> => Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, 1_000))]);
    const seen = await violations(nc, async () => {
      nc.publish(`$KV.forge_leases.held.alpha.${PROFILE}`, 'beta');
      await Promise.all([
        within(kv.delete(`held.alpha.${PROFILE}`)),
        within(nc.request('$JS.API.STREAM.PURGE.KV_forge_leases', '{}')),
        within(nc.request('$JS.API.STREAM.DELETE.KV_forge_leases')),
      ]);
    });
    const text = seen.join('\n');
    for (const subject of [`$KV.forge_leases.held.alpha.${PROFILE}`, '$JS.API.STREAM.PURGE.KV_forge_leases', '$JS.API.STREAM.DELETE.KV_forge_leases']) {
      expect(text).toContain(subject);
    }
    expect(text).toMatch(/permissions violation/i);
    const record = await kv.get(`held.alpha.${PROFILE}`);
    expect(record?.operation).toBe('PUT');
    expect(record?.string()).toBe('alpha');
  });

  it('a lease written over alpha\'s with beta\'s credential does not move the profile: alpha takes it back and agents on any node are served by alpha', async () => {
    await kv.put(`lease.${PROFILE}`, 'gamma');
    await kv.put(`lease.${PROFILE}`, 'beta');
    for (let i = 0; i < 100 && !alpha.output().includes('taken back'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alpha.output()).toContain(`wrote the lease of profile ${PROFILE} while node alpha held it and answered; taken back`);
    expect((await kv.get(`lease.${PROFILE}`))?.string()).toBe('alpha');
    expect((await lead.call('browser_evaluate', { function: '() => document.title' })).text).toContain('Kept');
    const other = await connectAgent(gamma, 'default/other/lead');
    agents.push(other);
    expect((await other.call('browser_navigate', { url: `${pages.url}?other` })).isError).toBe(false);
    expect((await lead.call('browser_tabs', { action: 'list' })).text).toContain('default/other/lead');
    for (const n of Object.values(cluster.nodes)) if (n !== alpha) expect(n.output()).not.toContain('browser host started');
    expect(alpha.output()).not.toContain('lost the lease');
  });
});
