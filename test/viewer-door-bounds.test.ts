/**
 * The viewer socket's door holds its bounds: an unauthenticated socket has a deadline and a small
 * size and reads nothing but hello; a reply never echoes unbounded input; a flood is told and
 * closed; and no message grows the server's memory past its own size.
 */
import { describe, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import type { RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer } from './helpers/viewer.js';
import { decodeControl, encodeControl } from '../src/shared/protocol.js';
import { AUTH_DEADLINE_MS, UNAUTH_MESSAGE_MAX_BYTES, VIEWER_MESSAGE_BURST } from '../src/workers/relay/door.js';
import { ERROR_MESSAGE_MAX_CHARS } from '../src/main/viewers.js';

let forge: RunningServer;

const it = forgeTest();

it.beforeAll(({ forge: f }) => { forge = f; });

/** The server's resident memory, MB, from /proc. */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** A socket with no token in its URL: what it hears, and how it was closed. */
async function bare(): Promise<{ ws: WebSocket; heard: unknown[]; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws`);
  const heard: unknown[] = [];
  ws.on('message', (d) => heard.push(d));
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
  await new Promise((r) => ws.on('open', r));
  return { ws, heard, closed };
}

/** How long the deadline test waits past the door's own deadline, ms: the close is not a race. */
const DEADLINE_SLACK_MS = 3_000;

describe('a socket that has not shown a token', () => {
  it('is closed in words once the hello deadline passes', async () => {
    const s = await bare();
    const c = await Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), AUTH_DEADLINE_MS + DEADLINE_SLACK_MS))]);
    expect(c).toEqual({ code: 4401, reason: `a viewer must send its token first, within ${AUTH_DEADLINE_MS / 1000} s` });
  });

  it('is closed, not answered, when its first message is malformed', async () => {
    const s = await bare();
    s.ws.send(new Uint8Array([0xc1, 0xc1, 0xc1]));
    expect((await s.closed).code).toBe(4401);
    expect(s.heard).toEqual([]);
  });

  it('is closed with 1009 when its first message is past the small bound, without it being read', async () => {
    const s = await bare();
    s.ws.send(encodeControl({ t: 'hello', token: 'x'.repeat(UNAUTH_MESSAGE_MAX_BYTES * 4) }));
    expect((await s.closed).code).toBe(1009);
    expect(s.heard).toEqual([]);
  });

  it('is admitted by a hello with a person\'s token', async () => {
    const s = await bare();
    s.ws.send(encodeControl({ t: 'hello', token: forge.info.viewer_token }));
    s.ws.send(encodeControl({ t: 'ping', id: 3 }));
    for (let i = 0; i < 50 && !s.heard.some((d) => (decodeControl(new Uint8Array(d as Buffer)) as { msg?: { t?: string } }).msg?.t === 'pong'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(s.heard.map((d) => (decodeControl(new Uint8Array(d as Buffer)) as { msg: { t: string } }).msg.t)).toContain('pong');
    s.ws.close();
  });

  it('is refused when its hello carries the agents\' key', async () => {
    const s = await bare();
    s.ws.send(encodeControl({ t: 'hello', token: forge.info.token }));
    const c = await s.closed;
    expect(c.code).toBe(4401);
    expect(c.reason).toContain('agents\' key');
  });
});

describe('an authenticated viewer', () => {
  it('gets error replies bounded in size, whatever size of input they name', async () => {
    const v = await openViewer(forge.info.port, forge.info.viewer_token);
    v.send({ t: 'attach', pageId: 'A'.repeat(1_000_000), w: 800, h: 600 });
    const e = await v.next('error');
    expect(String(e.message).length).toBeLessThanOrEqual(ERROR_MESSAGE_MAX_CHARS);
    await v.close();
  });

  it('does not grow the server\'s memory by replying after a huge message: each reply crosses threads at its own size', async () => {
    const v = await openViewer(forge.info.port, forge.info.viewer_token);
    // A reply that once carried its input back grew the encoder's shared buffer past 1 MB; every later reply then carried it all.
    v.send({ t: 'attach', pageId: 'A'.repeat(1_000_000), w: 800, h: 600 });
    await v.next('error');
    const before = rssMb(forge.info.pid);
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, rssMb(forge.info.pid)); }, 20);
    for (let i = 0; i < 1000; i++) v.send({ t: 'ping', id: i });
    await v.next('pong', (m) => m.id === 999, 60_000);
    clearInterval(sampler);
    const grown = Math.max(peak, rssMb(forge.info.pid)) - before;
    // 1,000 pongs of 14 bytes each: a growth of hundreds of MB is the shared buffer crossing with every one.
    expect(grown).toBeLessThan(150);
    await v.close();
  });

  it('that floods past the message rate is told so and closed, and the next viewer is served', async () => {
    const v = await openViewer(forge.info.port, forge.info.viewer_token);
    const closed = new Promise<{ code: number; reason: string }>((r) => v.ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    const ping = encodeControl({ t: 'ping' });
    for (let i = 0; i < VIEWER_MESSAGE_BURST * 3; i++) v.ws.send(ping);
    const c = await closed;
    expect(c.code).toBe(1008);
    expect(c.reason).toMatch(/messages a second/);
    expect(v.messages.some((m) => m.t === 'error' && /messages a second/.test(String(m.message)))).toBe(true);
    const after = await openViewer(forge.info.port, forge.info.viewer_token);
    after.send({ t: 'ping', id: 9 });
    expect((await after.next('pong')).id).toBe(9);
    await after.close();
  });
});
