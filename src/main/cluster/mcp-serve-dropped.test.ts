/**
 * A node that takes an asking node for gone (nats-server restarted, and its heartbeats were
 * late) drops what that node asked it to serve and tells it so at once: the asker's agent reads
 * a sentence now, not a "did not answer within 30 s" later. A node it still hears is untouched.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServing } from './mcp-serve.js';
import type { McpAnswer } from './protocol.js';

let endpoint: Server;
let port = 0;

beforeAll(async () => {
  // A loopback endpoint whose calls never answer: a tool call still running when the asker is taken for gone.
  endpoint = createServer(() => undefined);
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
  port = (endpoint.address() as { port: number }).port;
});
afterAll(async () => {
  endpoint.closeAllConnections();
  await new Promise((r) => endpoint.close(r));
});

describe('requests served for a node taken for gone', () => {
  it('are dropped and the asking node is told, request by request; another node\'s go on', async () => {
    const replies: Array<{ to: string; a: McpAnswer }> = [];
    const serving = new McpServing((to, a) => replies.push({ to, a }));
    serving.local = { port, token: 'fa_test' };
    const ask = (id: number) => ({ op: 'req' as const, id, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json' }, body: '{}' });
    serving.ask('beta', ask(1));
    serving.ask('beta', ask(2));
    serving.ask('gamma', ask(3));
    // Each request has reached the endpoint and waits there.
    let arrived = 0;
    endpoint.on('request', () => { arrived++; });
    await expect.poll(() => arrived).toBe(3);
    serving.nodeGone('beta');
    expect(replies.filter((x) => x.a.op === 'dropped')).toEqual([
      { to: 'beta', a: { op: 'dropped', id: 1 } },
      { to: 'beta', a: { op: 'dropped', id: 2 } },
    ]);
    serving.nodeGone('beta');
    expect(replies.filter((x) => x.a.op === 'dropped')).toHaveLength(2);
    serving.close();
    expect(replies.some((x) => x.to === 'gamma' && x.a.op === 'dropped')).toBe(false);
  });
});
