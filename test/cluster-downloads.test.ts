/**
 * A download kept on the node hosting its tab reaches the person who controls that tab from any
 * node: the link offered to a viewer on gamma fetches, on gamma, the bytes alpha kept (read through
 * alpha, a piece at a time), and every node's door reads nothing but a kept download, even for a
 * link signed with a key whoever holds a node's NATS credential published in that node's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { createHmac } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { MULTI_PIECE_BYTES, downloadBytes, serveFilePages, type FilePages } from './helpers/file-pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';
import { signDownload } from '../src/workers/relay/links.js';
import { linkKeyPair, publishedKey } from '../src/workers/relay/link-keys.js';
import { profilesRoot } from '../src/main/state.js';

let cluster: TestCluster<'alpha' | 'gamma'>;
let alpha: RunningServer;
let gamma: RunningServer;
let pages: FilePages;
let agent: Agent;
let person: TestViewer;
let nc: NatsConnection;
/** The link gamma's viewer was offered for report.csv. */
let reportUrl = '';

const get = (node: RunningServer, url: string): Promise<Response> => fetch(`http://127.0.0.1:${node.info.port}${url}`);

beforeAll(async () => {
  pages = await serveFilePages();
  cluster = await startCluster(['alpha', 'gamma'], { users: true });
  ({ alpha, gamma } = cluster.nodes);
  agent = await connectAgent(alpha, 'default/dl/lead');
  expect((await agent.call('browser_navigate', { url: `${pages.origin}/downloads` })).isError).toBe(false);
  person = await openViewer(gamma.info.port, gamma.info.viewer_token);
  person.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  await person.next('view');
  person.send({ t: 'control', take: true });
  await person.next('view', (m) => m.controller === m.you);
  // What one node's NATS credential can do with links: publish a key in that node's name.
  nc = await connect({ servers: cluster.nats.url, user: 'gamma', pass: cluster.nats.passwords!.gamma! });
});

afterAll(async () => {
  await nc?.close();
  await person?.close();
  await agent?.close();
  await cluster?.stop();
  await pages?.close();
});

describe('a download kept on alpha, controlled from gamma', () => {
  it('the link offered on gamma fetches on gamma the bytes alpha kept', async () => {
    await agent.call('browser_click', { target: 'css=#small' });
    const offer = await person.next('download', (m) => m.name === 'report.csv', 30_000);
    expect(offer).toMatchObject({ tab: 1, name: 'report.csv', size: 12345 });
    reportUrl = offer.url as string;
    const res = await get(gamma, reportUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('filename="report.csv"');
    expect(Buffer.from(await res.arrayBuffer()).equals(downloadBytes('report.csv', 12345))).toBe(true);
  });

  it('a download larger than one piece between nodes arrives whole and in order', async () => {
    await agent.call('browser_click', { target: 'css=#pieces' });
    const offer = await person.next('download', (m) => m.name === 'archive.bin', 30_000);
    const res = await get(gamma, offer.url as string);
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(MULTI_PIECE_BYTES);
    expect(body.equals(downloadBytes('archive.bin', MULTI_PIECE_BYTES))).toBe(true);
  });
});

describe('a download link reads a kept download and nothing else, on every node', () => {
  // Gamma's credential publishes a key of its own making in gamma's name: alpha then takes links naming gamma signed with it.
  const rogue = linkKeyPair();
  const NOT_KEPT = 'this download link does not name a download the server kept';
  beforeAll(async () => {
    const kv = await new Kvm(nc).open('forge_cluster');
    await kv.put('pub.gamma', publishedKey(rogue.publicKey));
    const probe = signDownload(rogue.privateKey, { file: '/etc/hostname', name: 'x', node: 'gamma' }, 10);
    for (let i = 0; i < 100 && (await (await get(alpha, `/download?k=${probe}`)).text()) !== NOT_KEPT; i++) await new Promise((r) => setTimeout(r, 50));
  });

  it('a link signed with a key published in a node\'s name that names a file out of the downloads is refused in words', async () => {
    const outside = ['../../server.json', '../../../../../../etc/hostname', 'default/default/Default/Cookies', '/etc/hostname'];
    for (const file of outside) {
      const k = signDownload(rogue.privateKey, { file, name: 'x', node: 'gamma' }, 10);
      const res = await get(alpha, `/download?k=${k}`);
      expect(res.status, file).toBe(403);
      expect(await res.text()).toBe(NOT_KEPT);
      // Gamma checks links naming it with its own key, whatever was published in its name.
      const own = await get(gamma, `/download?k=${k}`);
      expect(own.status, file).toBe(403);
      expect(await own.text()).toBe('this download link is not valid or has expired');
    }
  });

  it('a link in the old shape, naming a path of the server\'s disk and signed with a shared secret, is not a link', async () => {
    const body = `d.${Buffer.from(JSON.stringify({ p: '/etc/hostname', n: 'hostname' })).toString('base64url')}.${Math.floor(Date.now() / 1000) + 600}`;
    const k = `${body}.${createHmac('sha256', 'a shared secret').update(body).digest('base64url')}`;
    for (const door of [alpha, gamma]) {
      const res = await get(door, `/download?k=${k}`);
      expect(res.status).toBe(403);
      expect(await res.text()).toBe('this download link is not valid or has expired');
    }
  });

  it('a kept download whose file is gone is gone, in words, through the node that kept it', async () => {
    const claims = JSON.parse(Buffer.from(new URLSearchParams(reportUrl.split('?')[1]).get('k')!.split('.')[1]!, 'base64url').toString('utf8')) as { f: string; o: string };
    expect(claims.o).toBe('alpha');
    rmSync(join(profilesRoot(alpha.stateDir), claims.f), { force: true });
    const res = await get(gamma, reportUrl);
    expect(res.status).toBe(410);
    expect(await res.text()).toBe('report.csv is no longer kept on the server');
  });
});
