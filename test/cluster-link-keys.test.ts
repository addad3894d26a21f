/**
 * Each node signs its own links with a key of its own and publishes the public half in the
 * cluster bucket under its name; every node checks a link with the key of the node it names. A
 * node's NATS credential writes its own key and nothing else of that bucket, so it cannot stop
 * another node's links, and a key it publishes in its own name opens no link to another node's
 * hand-off or download. Beta and gamma start first, alpha (the only browser node) after them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { startForge, connectAgent, handOff, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer } from './helpers/viewer.js';
import { clusterToml, startNats, violations, type RunningNats } from './helpers/nats.js';
import { signDownload, signLink } from '../src/workers/relay/links.js';
import { linkKeyPair, publishedKey } from '../src/workers/relay/link-keys.js';

const SEAT = 'default/shop/lead';
const NO_BROWSER = ['terminal', 'viewer', 'mcp'];

let nats: RunningNats;
let alpha: RunningServer;
let beta: RunningServer;
let gamma: RunningServer;
let pages: PageServer;
let agent: Agent;
let nc: NatsConnection;
let kv: KV;
let pageId = '';

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Login</title><input id="pw" type="password"><button>Sign in</button>' });
  nats = await startNats({ users: ['alpha', 'beta', 'gamma'] });
  [beta, gamma] = await Promise.all(['beta', 'gamma'].map((n) => startForge({ toml: clusterToml(nats, n, NO_BROWSER) })));
  alpha = await startForge({ toml: clusterToml(nats, 'alpha') });
  agent = await connectAgent(alpha, SEAT);
  expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
  // What one node's NATS credential can do with the cluster bucket: beta's.
  nc = await connect({ servers: nats.url, user: 'beta', pass: nats.passwords!.beta! });
  kv = await new Kvm(nc).open('forge_cluster');
});

afterAll(async () => {
  await nc?.close();
  await agent?.close();
  await Promise.allSettled([alpha, beta, gamma].map((n) => n?.stop()));
  await nats?.stop();
  await pages?.close();
});

/** Parks a hand-off on alpha's tab: its printed link's token, and the agent's pending answer. */
async function park(message: string): Promise<{ token: string; call: ReturnType<typeof handOff> }> {
  const progress: string[] = [];
  const call = handOff(agent, pageId, message, progress);
  while (progress.length === 0) await new Promise((r) => setTimeout(r, 50));
  return { token: /\/handoff\/(h\.\S+)/.exec(progress[0]!)![1]!, call };
}

/** The status a node's viewer door answers a link with: 101 when the socket opens, else the refusal's. */
function doorSays(node: RunningServer, token: string): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${node.info.port}/ws?token=${token}`);
  return new Promise((resolve) => {
    ws.once('open', () => { ws.close(); resolve(101); });
    ws.once('unexpected-response', (req, res) => { resolve(res.statusCode ?? 0); req.destroy(); });
    ws.once('error', () => resolve(0));
  });
}

const nodes = (): Array<[string, RunningServer]> => [['alpha', alpha], ['beta', beta], ['gamma', gamma]];

describe('each node signs its own links', () => {
  it('a node\'s NATS credential cannot write another node\'s public key nor anything else of the cluster bucket', async () => {
    const alphaKey = await kv.get('pub.alpha');
    expect(alphaKey?.operation).toBe('PUT');
    const rogue = publishedKey(linkKeyPair().publicKey);
    // Each refused ask gets no answer: a second is long enough to hear the refusals.
    const within = (p: Promise<unknown>): Promise<unknown> => Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, 1_000))]);
    const seen = await violations(nc, async () => {
      await Promise.all([
        within(kv.put('pub.alpha', rogue)),
        within(kv.put('link_secret', 'a secret every node would sign with')),
        within(kv.delete('pub.gamma')),
        within(nc.request('$JS.API.STREAM.PURGE.KV_forge_cluster', '{}')),
      ]);
    });
    const text = seen.join('\n');
    for (const subject of ['$KV.forge_cluster.pub.alpha', '$KV.forge_cluster.link_secret', '$KV.forge_cluster.pub.gamma', '$JS.API.STREAM.PURGE.KV_forge_cluster']) {
      expect(text).toContain(subject);
    }
    expect(text).toMatch(/permissions violation/i);
    const after = await kv.get('pub.alpha');
    expect(after?.revision).toBe(alphaKey!.revision);
    expect(after?.string()).toBe(alphaKey!.string());
    expect((await kv.get('pub.gamma'))?.operation).toBe('PUT');
    expect(await kv.get('link_secret')).toBeNull();
  });

  it('a link printed by a node that started after the others opens on every node', async () => {
    const { token, call } = await park('Sign in on your phone');
    expect(token).toMatch(/^h\.ho-[0-9a-f]+-alpha\./);
    for (const [name, node] of nodes()) {
      const phone = await openViewer(node.info.port, token);
      try {
        phone.send({ t: 'attach', tab: 99, w: 393, h: 700 });
        expect((await phone.next('view')).pageId, `on ${name}`).toBe(pageId);
        if (name === 'gamma') {
          const mine = phone.messages.find((m) => m.t === 'handoffs')!.asks as Array<{ id: string }>;
          phone.send({ t: 'answer', handoff: mine[0]!.id, answer: 'done' });
          expect((await call).structured).toMatchObject({ answer: 'done' });
        }
      } finally {
        await phone.close();
      }
    }
  });

  it('a link to alpha\'s hand-off signed by beta\'s key is refused on every node, while alpha\'s own link opens', async () => {
    // A rogue beta: its credential publishes a key of its own making in beta's name, which it may.
    const rogue = linkKeyPair();
    await kv.put('pub.beta', publishedKey(rogue.publicKey));
    // The other nodes take that key for beta's links: a link naming a hand-off of beta's opens their door.
    const betas = signLink(rogue.privateKey, 'ho-00000000-beta').token;
    await expect.poll(() => doorSays(alpha, betas)).toBe(101);
    await expect.poll(() => doorSays(gamma, betas)).toBe(101);

    const { token, call } = await park('Approve on your phone');
    const id = token.split('.')[1]!;
    expect(id).toMatch(/-alpha$/);
    const forged = signLink(rogue.privateKey, id).token;
    const download = (node?: string): string => signDownload(rogue.privateKey, { file: 'default/default-downloads/dl-00000000-report.csv', name: 'report.csv', ...(node ? { node } : {}) }, 10);
    for (const [name, node] of nodes()) {
      expect(await doorSays(node, forged), `hand-off link on ${name}`).toBe(401);
      for (const k of [download('alpha'), download()]) {
        const res = await fetch(`http://127.0.0.1:${node.info.port}/download?k=${k}`);
        expect(res.status, `download link on ${name}`).toBe(403);
        expect(await res.text()).toBe('this download link is not valid or has expired');
      }
    }

    const phone = await openViewer(alpha.info.port, token);
    try {
      phone.send({ t: 'attach', tab: 99, w: 393, h: 700 });
      expect((await phone.next('view')).pageId).toBe(pageId);
      const mine = phone.messages.find((m) => m.t === 'handoffs')!.asks as Array<{ id: string }>;
      phone.send({ t: 'answer', handoff: mine[0]!.id, answer: 'done' });
      expect((await call).structured).toMatchObject({ answer: 'done' });
    } finally {
      await phone.close();
    }
  });
});
