/**
 * Agents on any node: an MCP session that reaches this node for a profile another node hosts is
 * served there, as a forwarded stream. Each HTTP request of the session (the initialize, every
 * POST, the client's GET stream, the DELETE) goes to the owner over NATS whole, and the owner's
 * answer comes back as it is written: its head, its body in chunks (an SSE stream's progress
 * notifications as they happen), its end. The owner answers it from its own MCP endpoint, so the
 * answers, refusals and progress are the ones its own agents get.
 *
 * The agent's key is checked here, where it connected; the owner trusts the node (NATS carries
 * only what the cluster's token admits) and serves the request under its own key.
 *
 *   forge.mcp.<owner>.<from>     {op: 'req' | 'abort'} from the reaching node
 *   forge.mcpres.<from>.<owner>  {op: 'head' | 'chunk' | 'end'} the owner's answer, in order
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { log } from '../logging.js';
import { packOp, subjects, unpackOp, type McpAnswer, type McpAsk } from './protocol.js';

/** What an agent whose session another node served reads once that node stopped answering. */
export function sessionGoneSentence(node: string): string {
  return `node ${node} serving this MCP session stopped answering; initialize a new session, and it is served where the profile is now`;
}

/** Largest piece of an answer's body in one message, bytes: well under NATS's max_payload. */
export const MCP_CHUNK_MAX_BYTES = 256 * 1024;
/**
 * How long the owner may take to start answering a forwarded request, ms: a call's answer starts
 * with its head at once (the SDK writes it before the tool runs), so this is only a lost owner.
 */
export const MCP_HEAD_DEADLINE_MS = 30_000;

/** The request headers the owner's endpoint reads; the rest (the agent's key above all) stay here. */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'] as const;
/** The answer headers the agent reads. */
const ANSWERED_HEADERS = ['content-type', 'mcp-session-id', 'cache-control', 'www-authenticate'] as const;

interface Pending {
  res: ServerResponse; node: string; seat: string; headed: boolean; deadline: NodeJS.Timeout;
  /** The JSON-RPC ids the request asks answers for, and whether its answer is an event stream. */
  calls: Array<string | number>; stream: boolean;
}

/** The JSON-RPC request ids a POST body carries (one message or a batch). */
function requestIds(body: unknown): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    const id = (m as { id?: unknown; method?: unknown } | null)?.id;
    if ((typeof id === 'string' || typeof id === 'number') && typeof (m as { method?: unknown }).method === 'string') ids.push(id);
  }
  return ids;
}
/** A session another node serves; `gone`: that node stopped, and the session's next request hears this. */
export interface ServedElsewhere { node: string; seat: string; gone?: string }

export class McpForward {
  /** Sessions served elsewhere: session id → the node serving it, and its seat (checked against every request's key here). */
  private readonly sessions = new Map<string, ServedElsewhere>();
  private readonly pending = new Map<number, Pending>();
  /** Requests served here for other nodes: `node:id` → the loopback request. */
  private readonly served = new Map<string, ClientRequest>();
  private nextId = 1;
  private readonly subs: Subscription[];
  /** Where this node's own endpoint is, once it listens. */
  local?: { port: number; token: string };

  constructor(private readonly nc: NatsConnection, private readonly node: string) {
    const from = (subject: string): string => subject.slice(subject.lastIndexOf('.') + 1);
    this.subs = [
      nc.subscribe(subjects.mcp(node, '*'), { callback: (_e, m) => this.ask(from(m.subject), unpackOp<McpAsk>(m.data)) }),
      nc.subscribe(subjects.mcpAnswer(node, '*'), { callback: (_e, m) => this.answer(from(m.subject), unpackOp<McpAnswer>(m.data)) }),
    ];
  }

  /** The node serving session `sid`, when it is another node's. */
  servedBy(sid: string | undefined): ServedElsewhere | undefined { return sid === undefined ? undefined : this.sessions.get(sid); }

  // ---- the reaching node ----

  /** Sends the agent's request to node `node` and writes its answer to `res` as it comes. */
  forward(node: string, seat: string, req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const sid = req.headers['mcp-session-id'];
    const gone = typeof sid === 'string' ? this.sessions.get(sid)?.gone : undefined;
    if (gone !== undefined) {
      // Said once, as a session this node lost would be: the client starts a new one, placed where the profile is now.
      this.sessions.delete(sid as string);
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: gone }, id: null }));
      return;
    }
    const id = this.nextId++;
    const headers: Record<string, string> = {};
    for (const h of FORWARDED_HEADERS) { const v = req.headers[h]; if (typeof v === 'string') headers[h] = v; }
    const deadline = setTimeout(() => this.fail(id, `node ${node} did not answer within ${MCP_HEAD_DEADLINE_MS / 1000} s; call again`), MCP_HEAD_DEADLINE_MS);
    deadline.unref();
    this.pending.set(id, { res, node, seat, headed: false, deadline, calls: requestIds(body), stream: false });
    res.once('close', () => {
      if (!this.pending.delete(id)) return;
      clearTimeout(deadline);
      this.publish(subjects.mcp(node, this.node), { op: 'abort', id });
    });
    this.publish(subjects.mcp(node, this.node), { op: 'req', id, method: req.method ?? 'GET', path: req.url ?? '/mcp', headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  }

  private answer(node: string, a: McpAnswer | undefined): void {
    const p = a && this.pending.get(a.id);
    if (!a || !p || p.node !== node) return;
    if (a.op === 'head') {
      clearTimeout(p.deadline);
      p.headed = true;
      p.stream = (a.headers['content-type'] ?? '').startsWith('text/event-stream');
      const sid = a.headers['mcp-session-id'];
      if (sid) this.sessions.set(sid, { node, seat: p.seat });
      p.res.writeHead(a.status, a.headers);
      p.res.flushHeaders();
    } else if (a.op === 'chunk') {
      p.res.write(a.data);
    } else {
      this.pending.delete(a.id);
      p.res.end();
    }
  }

  /** A forwarded request that will get no answer: the agent reads why. */
  private fail(id: number, sentence: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.deadline);
    if (!p.headed) {
      p.res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: sentence }, id: null }));
    } else if (p.stream) {
      // A call whose answer was streaming: each of its requests is answered with the sentence, as the owner would have.
      for (const rid of p.calls) p.res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: rid, error: { code: -32000, message: sentence } })}\n\n`);
      p.res.end();
    } else {
      p.res.end();
    }
  }

  /** Node `node` stopped answering: its sessions here are over, and each waiting request hears it. */
  nodeGone(node: string): void {
    const sentence = sessionGoneSentence(node);
    for (const at of this.sessions.values()) if (at.node === node) at.gone = sentence;
    for (const [id, p] of [...this.pending]) if (p.node === node) this.fail(id, sentence);
    for (const [key, r] of [...this.served]) if (key.startsWith(`${node}:`)) { r.destroy(); this.served.delete(key); }
  }

  // ---- the owning node ----

  private ask(from: string, a: McpAsk | undefined): void {
    if (!a) return;
    const key = `${from}:${a.id}`;
    if (a.op === 'abort') { this.served.get(key)?.destroy(); this.served.delete(key); return; }
    const reply = subjects.mcpAnswer(from, this.node);
    if (!this.local) { this.publish(reply, { op: 'head', id: a.id, status: 503, headers: { 'content-type': 'text/plain' } }); this.publish(reply, { op: 'end', id: a.id }); return; }
    const r = httpRequest({
      host: '127.0.0.1', port: this.local.port, method: a.method, path: a.path,
      headers: { ...a.headers, authorization: `Bearer ${this.local.token}`, host: `127.0.0.1:${this.local.port}` },
    }, (res) => {
      const headers: Record<string, string> = {};
      for (const h of ANSWERED_HEADERS) { const v = res.headers[h]; if (typeof v === 'string') headers[h] = v; }
      this.publish(reply, { op: 'head', id: a.id, status: res.statusCode ?? 502, headers });
      res.on('data', (d: Buffer) => {
        for (let off = 0; off < d.byteLength; off += MCP_CHUNK_MAX_BYTES) this.publish(reply, { op: 'chunk', id: a.id, data: d.subarray(off, off + MCP_CHUNK_MAX_BYTES) });
      });
      res.on('end', () => { this.served.delete(key); this.publish(reply, { op: 'end', id: a.id }); });
      res.on('error', () => undefined);
    });
    r.on('error', (e) => {
      if (!this.served.delete(key)) return;
      log.warn({ err: e, from }, 'a forwarded MCP request failed here');
      this.publish(reply, { op: 'end', id: a.id });
    });
    this.served.set(key, r);
    r.end(a.body);
  }

  private publish(subject: string, m: McpAsk | McpAnswer): void {
    try { this.nc.publish(subject, packOp(m)); } catch (e) { log.warn({ err: e, subject }, 'a forwarded MCP message was not sent'); }
  }

  close(): void {
    for (const s of this.subs) s.unsubscribe();
    for (const id of [...this.pending.keys()]) this.fail(id, `node ${this.node} is stopping`);
    for (const r of this.served.values()) r.destroy();
    this.served.clear();
  }
}
