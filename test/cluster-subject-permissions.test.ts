/**
 * Each node joins NATS as its own user, held to forge's per-node permissions: the cluster works
 * as before (a viewer on gamma watches and types into alpha's tab and terminal, an agent on beta
 * is served by alpha), and a node's credential lets it neither speak for another node nor read
 * what is meant for one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { Viewer } from './helpers/term-viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';
import { permissionErrors } from './helpers/nats.js';

const SEAT = 'default/proj/lead';

let cluster: TestCluster<'alpha' | 'beta' | 'gamma'>;
let alpha: RunningServer;
let beta: RunningServer;
let gamma: RunningServer;
let pages: PageServer;
let agent: Agent;
let person: TestViewer;

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Held</title><p>held</p>' });
  cluster = await startCluster(['alpha', 'beta', 'gamma'], { users: true });
  ({ alpha, beta, gamma } = cluster.nodes);
  agent = await connectAgent(alpha, SEAT);
  expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  expect((await agent.call('terminal__run', { command: 'echo ready' })).isError).toBe(false);
  person = await openViewer(gamma.info.port, gamma.info.viewer_token);
});

afterAll(async () => {
  await person?.close();
  await agent?.close();
  await cluster?.stop();
  await pages?.close();
});

describe('nodes held to their own subjects', () => {
  it('under the permissions, a viewer on gamma gets alpha\'s frames and its terminal, and an agent on beta is served by alpha', async () => {
    person.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    expect((await person.next('view')).title).toBe('Held');
    await person.waitFrames(1);
    const term = await Viewer.open(gamma.info);
    try {
      term.send({ t: 'term_attach', seat: SEAT, cols: 80, rows: 24 });
      await term.until(() => term.frames.some((f) => f.flags & 1), 15_000, 'the terminal repaint on gamma');
      expect(term.text()).toContain('ready');
    } finally {
      term.close();
    }
    const b = await connectAgent(beta, 'default/shop/lead');
    try {
      expect((await b.call('browser_navigate', { url: pages.url })).isError).toBe(false);
      expect(beta.output()).not.toContain('browser host started');
    } finally {
      await b.close();
    }
  });

  it('beta\'s credential may not speak for alpha nor read what alpha sends gamma, nor ask for a download as gamma or read the asks gamma gets', async () => {
    const nc = await connect({ servers: cluster.nats.url, user: 'beta', pass: cluster.nats.passwords!.beta! });
    try {
      const text = await permissionErrors(nc, () => {
        nc.publish('forge.presence.alpha');
        nc.publish('forge.term.gamma.alpha', new Uint8Array(16));
        nc.publish('forge.node.gamma.pushes.alpha', new Uint8Array(4));
        nc.subscribe('forge.term.gamma.*');
        nc.subscribe('forge.frames.alpha.*.gamma');
        // A download piece asked of alpha as if by gamma, and the asks meant for gamma.
        nc.publish('forge.dl.alpha.gamma', new Uint8Array(4));
        nc.subscribe('forge.dl.gamma.*');
      });
      for (const subject of ['forge.presence.alpha', 'forge.term.gamma.alpha', 'forge.node.gamma.pushes.alpha', 'forge.term.gamma.*', 'forge.frames.alpha.*.gamma', 'forge.dl.alpha.gamma', 'forge.dl.gamma.*']) {
        expect(text).toContain(subject);
      }
      expect(text).toMatch(/permissions violation/i);
    } finally {
      await nc.close();
    }
    // The viewer on gamma was not disturbed: it is still served by alpha.
    person.send({ t: 'tabs' });
    await person.next('tabs');
  });
});
