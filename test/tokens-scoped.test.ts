/**
 * Tokens with scopes: the printed link's token is a person's, not the agents' key; `forge token
 * new` makes tokens that do only what they name (watch, some seats, one tab, an agent key for
 * some seats), kept hashed; a revoked or expired token's open sockets and sessions end at once.
 */
import { describe, expect } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { mcpClient, type RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { hashSecret } from '../src/workers/relay/tokens.js';
import { knownSecret, printedSecret, tokenCli } from './helpers/tokens.js';

let forge: RunningServer;
let shopPage = '';
let opsPage = '';

const token = (...args: string[]): string => tokenCli(forge, ...args);
const secretOf = (out: string): Promise<string> => knownSecret(forge, out);

/** A viewer's socket refusal at the door: its HTTP status and words. */
function refusedAtDoor(secret: string): Promise<{ status: number; body: string }> {
  const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws?token=${secret}`);
  return new Promise((resolve) => ws.on('unexpected-response', (_q, res) => {
    let body = '';
    res.on('data', (d: Buffer) => { body += d.toString(); });
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
  }));
}

function closeOf(v: TestViewer): Promise<{ code: number; reason: string }> {
  return new Promise((r) => v.ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
}

const it = forgeTest({}, { '/': '<title>Shop</title><button>Buy</button>', '/ops': '<title>Ops</title><p>ops</p>' });

it.beforeAll(async ({ forge: f, pages, agentFor }) => {
  forge = f;
  const shop = await agentFor('default/shop/lead');
  const ops = await agentFor('default/ops/lead');
  await shop.call('browser_navigate', { url: pages.url });
  await ops.call('browser_navigate', { url: `${pages.origin}/ops` });
  shopPage = /page (p-[0-9a-f]{8})/.exec((await shop.call('browser_tabs', { action: 'list' })).text)![1]!;
  opsPage = /page (p-[0-9a-f]{8})/.exec((await ops.call('browser_tabs', { action: 'list' })).text)![1]!;
  await shop.call('terminal__run', { command: 'echo shop-ready' });
  await ops.call('terminal__run', { command: 'echo ops-ready' });
});

describe('the printed viewer link and the agents\' key are different secrets', () => {
  it('the viewer link\'s token opens no MCP session', async () => {
    const r = await fetch(`${forge.info.mcp_url}?seat=default/shop/lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${forge.info.viewer_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } } }),
    });
    expect(r.status).toBe(401);
    expect(await r.text()).toContain('this is a person\'s token: it opens the viewer only');
    expect(new URL(forge.info.viewer_url).searchParams.get('token')).toBe(forge.info.viewer_token);
    expect(forge.info.viewer_token).not.toBe(forge.info.token);
  });

  it('the agents\' key opens no viewer socket', async () => {
    const r = await refusedAtDoor(forge.info.token);
    expect(r.status).toBe(403);
    expect(r.body).toContain('this is the agents\' key: it opens MCP only');
  });

  it('/metrics answers the agents\' key only', async () => {
    const url = `http://127.0.0.1:${forge.info.port}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${forge.info.viewer_token}` } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${forge.info.token}` } })).status).toBe(200);
  });
});

describe('forge token new', () => {
  it('keeps only a hash, in a file only its owner reads, and lists tokens without their secrets', async () => {
    const out = token('new', '--name', 'kept', '--watch', '--expires', '8h');
    const secret = printedSecret(out);
    const file = join(forge.stateDir, 'tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secret);
    expect(text).toContain(hashSecret(secret));
    const list = token('list');
    expect(list).toMatch(/^kept\tperson, watch\tevery seat\texpires /m);
    expect(list).not.toContain(secret);
    token('revoke', 'kept');
  });

  it('a watch token watches a tab and a terminal, and every act is refused in words', async () => {
    const w = await openViewer(forge.info.port, await secretOf(token('new', '--name', 'watcher', '--watch')));
    w.send({ t: 'attach', pageId: shopPage, w: 800, h: 600 });
    await w.next('view');
    for (const [i, m] of ([{ t: 'control', take: true }, { t: 'input', ev: { type: 'text', text: 'x' } }, { t: 'nav', dir: 'back' }, { t: 'answer', handoff: 'ho-x', answer: 'done' }] as const).entries()) {
      w.send({ ...m, id: 10 + i });
      expect((await w.next('error', (e) => e.id === 10 + i)).message).toBe(`this link is for watching; "${m.t}" needs a token that may take control`);
    }
    w.send({ t: 'term_attach', seat: 'default/shop/lead', cols: 80, rows: 24 });
    const st = await w.next('term_state');
    w.send({ t: 'term_control', term: st.term as number, take: true, id: 20 });
    expect((await w.next('error', (e) => e.id === 20)).message).toBe('this link is for watching; "term_control" needs a token that may take control');
    await w.close();
    token('revoke', 'watcher');
  });

  it('a token for some seats sees and opens only those seats\' tabs and terminals', async () => {
    const v = await openViewer(forge.info.port, await secretOf(token('new', '--name', 'shop-only', '--seat', 'default/shop/*')));
    v.send({ t: 'tabs' });
    const list = await v.next('tabs');
    expect((list.tabs as Array<{ pageId: string }>).map((t) => t.pageId)).toEqual([shopPage]);
    const rows = v.messages.find((m) => m.t === 'terminals')!;
    expect((rows.rows as Array<{ seat: string }>).map((r) => r.seat)).toEqual(['default/shop/lead']);
    expect(rows.seats).toEqual(['default/shop/lead']);
    v.send({ t: 'attach', pageId: opsPage, w: 800, h: 600, id: 30 });
    expect((await v.next('error', (e) => e.id === 30)).message).toContain(`the page ${opsPage} is not open`);
    v.send({ t: 'term_attach', seat: 'default/ops/lead', cols: 80, rows: 24, id: 31 });
    expect((await v.next('error', (e) => e.id === 31)).message).toBe('this token does not cover seat default/ops/lead');
    v.send({ t: 'attach', pageId: shopPage, w: 800, h: 600 });
    await v.next('view', (m) => m.pageId === shopPage);
    await v.close();
    token('revoke', 'shop-only');
  });

  it('a token for one tab sees that tab only, and no terminal', async () => {
    const v = await openViewer(forge.info.port, await secretOf(token('new', '--name', 'one-tab', '--tab', opsPage)));
    v.send({ t: 'tabs' });
    expect(((await v.next('tabs')).tabs as Array<{ pageId: string }>).map((t) => t.pageId)).toEqual([opsPage]);
    v.send({ t: 'attach', w: 800, h: 600 });
    expect((await v.next('view')).pageId).toBe(opsPage);
    v.send({ t: 'term_attach', seat: 'default/ops/lead', cols: 80, rows: 24, id: 40 });
    expect((await v.next('error', (e) => e.id === 40)).message).toBe('this token does not cover seat default/ops/lead');
    expect(((v.messages.find((m) => m.t === 'terminals')?.rows ?? []) as unknown[]).length).toBe(0);
    await v.close();
    token('revoke', 'one-tab');
  });

  it('an agent key for some seats opens MCP for those seats only, and no viewer', async () => {
    const secret = await secretOf(token('new', '--agent', '--name', 'shop-agent', '--seat', 'default/shop/*'));
    const info = { ...forge.info, token: secret };
    const ok = await mcpClient(info, 'default/shop/worker');
    expect((await ok.listTools()).tools.length).toBeGreaterThan(0);
    await ok.close();
    await expect(mcpClient(info, 'default/ops/lead')).rejects.toThrow(/this agent key does not cover seat default\/ops\/lead/);
    expect((await refusedAtDoor(secret)).status).toBe(403);
    token('revoke', 'shop-agent');
  });
});

describe('a token that ends', () => {
  it('revoked, closes its open sockets at once and opens nothing more', async () => {
    const secret = await secretOf(token('new', '--name', 'phone'));
    const v = await openViewer(forge.info.port, secret);
    const closed = closeOf(v);
    expect(token('revoke', 'phone')).toContain('revoked phone');
    expect(await closed).toEqual({ code: 4401, reason: 'this token was revoked or has expired' });
    expect((await refusedAtDoor(secret)).status).toBe(401);
  });

  it('revoked, ends the MCP sessions it opened', async () => {
    const secret = await secretOf(token('new', '--agent', '--name', 'bot'));
    const client = await mcpClient({ ...forge.info, token: secret }, 'default/bot/lead');
    token('revoke', 'bot');
    await new Promise((r) => setTimeout(r, 1500));
    await expect(client.listTools()).rejects.toThrow();
    await client.close().catch(() => undefined);
  });

  it('expired, closes its open socket when its time is up', async () => {
    // Written straight into the state dir, with an expiry seconds away: --expires counts in minutes at least.
    const secret = 'fp_expiring-token-for-this-test-only';
    const file = join(forge.stateDir, 'tokens.json');
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { tokens: unknown[] };
    kept.tokens.push({ name: 'brief', kind: 'person', role: 'control', hash: hashSecret(secret), seats: null, exp: Date.now() + 3_000, created: Date.now() });
    writeFileSync(file, JSON.stringify(kept));
    let v: TestViewer | undefined;
    for (let i = 0; i < 30 && !v; i++) {
      v = await openViewer(forge.info.port, secret).catch(() => undefined);
      if (!v) await new Promise((r) => setTimeout(r, 100));
    }
    expect(await closeOf(v!)).toEqual({ code: 4401, reason: 'this token was revoked or has expired' });
  });
});
