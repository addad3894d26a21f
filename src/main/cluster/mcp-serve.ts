/**
 * The serving side of a forwarded MCP session (see mcp-forward.ts): each request another node
 * sends is made to this node's own loopback endpoint under this node's key, and its answer goes
 * back as it is written: its head, its body in chunks, its end.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { log } from '../logging.js';
import type { McpAnswer, McpAsk } from './protocol.js';

/** Largest piece of an answer's body in one message, bytes: well under NATS's max_payload. */
export const MCP_CHUNK_MAX_BYTES = 256 * 1024;

/** The answer headers the agent reads. */
const ANSWERED_HEADERS = ['content-type', 'mcp-session-id', 'cache-control', 'www-authenticate'] as const;

export class McpServing {
  /** Requests served here: `node:id` → the asking node, its request id, and the loopback request. */
  private readonly served = new Map<string, { from: string; id: number; r: ClientRequest }>();
  /** Where this node's own endpoint is, once it listens. */
  local?: { port: number; token: string };

  /** `reply(from, answer)`: sends a piece of an answer back to node `from`. */
  constructor(private readonly reply: (from: string, a: McpAnswer) => void) {}

  /** Node `from` asks a request made, or one it made dropped. */
  ask(from: string, a: McpAsk | undefined): void {
    if (!a) return;
    const key = `${from}:${a.id}`;
    if (a.op === 'abort') { this.served.get(key)?.r.destroy(); this.served.delete(key); return; }
    if (!this.local) { this.reply(from, { op: 'head', id: a.id, status: 503, headers: { 'content-type': 'text/plain' } }); this.reply(from, { op: 'end', id: a.id }); return; }
    const r = httpRequest({
      host: '127.0.0.1', port: this.local.port, method: a.method, path: a.path,
      headers: { ...a.headers, authorization: `Bearer ${this.local.token}`, host: `127.0.0.1:${this.local.port}` },
    }, (res) => {
      const headers: Record<string, string> = {};
      for (const h of ANSWERED_HEADERS) { const v = res.headers[h]; if (typeof v === 'string') headers[h] = v; }
      this.reply(from, { op: 'head', id: a.id, status: res.statusCode ?? 502, headers });
      res.on('data', (d: Buffer) => {
        for (let off = 0; off < d.byteLength; off += MCP_CHUNK_MAX_BYTES) this.reply(from, { op: 'chunk', id: a.id, data: d.subarray(off, off + MCP_CHUNK_MAX_BYTES) });
      });
      res.on('end', () => { this.served.delete(key); this.reply(from, { op: 'end', id: a.id }); });
      res.on('error', () => undefined);
    });
    r.on('error', (e) => {
      if (!this.served.delete(key)) return;
      log.warn({ err: e, from }, 'a forwarded MCP request failed here');
      this.reply(from, { op: 'end', id: a.id });
    });
    this.served.set(key, { from, id: a.id, r });
    r.end(a.body);
  }

  /**
   * Node `node` stopped answering: what it asked here is dropped, and it is told so. A node
   * taken for gone may only have been out of touch for a moment (nats-server restarted): told,
   * its agent reads a sentence at once instead of waiting out the request's deadline.
   */
  nodeGone(node: string): void {
    for (const [key, s] of [...this.served]) {
      if (s.from !== node) continue;
      this.served.delete(key);
      s.r.destroy();
      this.reply(s.from, { op: 'dropped', id: s.id });
    }
  }

  close(): void {
    for (const s of this.served.values()) s.r.destroy();
    this.served.clear();
  }
}
