/**
 * Agents on any node: an MCP session that reaches this node for a profile another node hosts is
 * served there, as a forwarded stream. Each HTTP request of the session (the initialize, every
 * POST, the client's GET stream, the DELETE) goes to the owner over NATS whole, and the owner's
 * answer comes back as it is written: its head, its body in chunks (an SSE stream's progress
 * notifications as they happen), its end. The owner answers it from its own MCP endpoint (see
 * mcp-serve.ts), so the answers, refusals and progress are the ones its own agents get.
 *
 * A session follows its profile: one this node served itself whose profile another node took,
 * and one whose serving node stopped, is opened again where the profile is now (another node, or
 * this one through its own endpoint) with the agent's own initialize, and goes on under the
 * agent's session id, which this node maps to the serving node's.
 *
 * The agent's key is checked here, where it connected; the owner trusts the node (NATS carries
 * only what the cluster's token admits) and serves the request under its own key.
 *
 *   forge.mcp.<owner>.<from>     {op: 'req' | 'abort'} from the reaching node
 *   forge.mcpres.<from>.<owner>  {op: 'head' | 'chunk' | 'end'} the owner's answer, in order
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { ForgeError } from '../../shared/errors.js';
import { log } from '../logging.js';
import { NOTICE_HEADER } from '../mcp/notice.js';
import { mcpRequestHeaders, type SessionOpening, type SessionOwner } from '../mcp/http.js';
import { McpServing } from './mcp-serve.js';
import { packOp, senderOf, subjects, unpackOp, type McpAnswer, type McpAsk } from './protocol.js';

/** What an agent whose call waited on a node that stopped reads: the call is lost, the session is not. */
export function sessionGoneSentence(node: string): string {
  return `node ${node} serving this MCP session stopped answering, and the tabs it held for this session were lost; call again, and the session goes on where its profile is placed now`;
}
/** What a call reads when the node serving it took this node for gone and dropped it. */
export function droppedSentence(node: string): string {
  return `node ${node} lost touch with this node for a moment and dropped this call unanswered; whether it was done is not known: look (a snapshot, a read), then call again`;
}
/** What the first call of a session moved off a node that stopped reads above its answer. */
export function sessionMovedSentence(from: string, to: string): string {
  return `node ${from} serving this MCP session stopped answering, and the tabs it held for this session were lost; the session goes on on node ${to}`;
}
/** What a forwarded session's waiting calls read when its agent key is revoked or expires. */
export const KEY_ENDED_SENTENCE = 'this agent key was revoked or has expired; the MCP session is closed';

/**
 * How long the owner may take to start answering a forwarded request, ms: a call's answer starts
 * with its head at once (the SDK writes it before the tool runs), so this is only a lost owner.
 */
export const MCP_HEAD_DEADLINE_MS = 30_000;


/** A session another node (or this one's own endpoint, after a move) serves. */
export interface ServedElsewhere extends SessionOwner {
  node: string;
  /** Its id where it is served: the agent's own until it moved. */
  remote: string;
  opening: SessionOpening;
  /** Set while it is opened again somewhere: its requests wait for it. */
  placing?: Promise<void>;
  /** Its serving node stopped: the next request opens it again where the profile is now. */
  gone?: string;
  /** The node that stopped with its tabs, until a tool answer told the agent (a call it had waiting, or its next). */
  lostOn?: string;
}

/** Where a forwarded request's answer goes: the agent's response, or a move's own exchange. */
interface AnswerSink {
  head(status: number, headers: Record<string, string>): void;
  chunk(d: Uint8Array): void;
  end(): void;
  /** No answer will come: said in words (before any head). */
  refuse(status: number, sentence: string): void;
  onClose(cb: () => void): void;
}

interface Pending {
  sink: AnswerSink; node: string; ask: Extract<McpAsk, { op: 'req' }>; headed: boolean; deadline: NodeJS.Timeout;
  /** The agent's session id, when the request belongs to a known session. */
  sid?: string;
  /** A new session's initialize: whose it is, to keep once the owner names its id. */
  opens?: SessionOwner;
  /** A tool call of this session: once answered, the agent has read the session's notice. */
  tells?: ServedElsewhere;
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

function refusal(sentence: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: sentence }, id: null });
}

function responseSink(res: ServerResponse): AnswerSink {
  return {
    head: (status, headers) => { res.writeHead(status, headers); res.flushHeaders(); },
    chunk: (d) => { res.write(d); },
    end: () => { res.end(); },
    refuse: (status, sentence) => { if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }); res.end(refusal(sentence)); },
    onClose: (cb) => { res.once('close', cb); },
  };
}

export class McpForward {
  /** Sessions served elsewhere, by the agent's session id. */
  private readonly sessions = new Map<string, ServedElsewhere>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly subs: Subscription[];
  readonly serving: McpServing;

  /** `placeFor(profile)`: the live node hosting the profile now, other than this one; undefined: this one. */
  constructor(private readonly nc: NatsConnection, private readonly node: string, private readonly placeFor: (profile: string) => string | undefined) {
    this.serving = new McpServing((from, a) => (from === this.node ? this.answer(this.node, a) : this.publish(subjects.mcpAnswer(from, this.node), a)));
    this.subs = [
      nc.subscribe(subjects.mcp(node, '*'), { callback: (_e, m) => this.serving.ask(senderOf(m.subject), unpackOp<McpAsk>(m.data)) }),
      nc.subscribe(subjects.mcpAnswer(node, '*'), { callback: (_e, m) => this.answer(senderOf(m.subject), unpackOp<McpAnswer>(m.data)) }),
    ];
  }

  /** The session `sid`, when another node (or a move) serves it. */
  servedBy(sid: string | undefined): ServedElsewhere | undefined { return sid === undefined ? undefined : this.sessions.get(sid); }

  /** Sends the agent's request to node `node` (a new session's) or to its session's node, and writes the answer to `res` as it comes. */
  forward(node: string, owner: SessionOwner, req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const sid = req.headers['mcp-session-id'];
    const ask: Pending['ask'] = { op: 'req', id: 0, method: req.method ?? 'GET', path: req.url ?? '/mcp', headers: mcpRequestHeaders(req), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
    const entry = typeof sid === 'string' ? this.sessions.get(sid) : undefined;
    if (entry) void this.inSession(sid as string, entry, ask, responseSink(res), requestIds(body));
    else this.send(node, ask, responseSink(res), { calls: requestIds(body), opens: owner });
  }

  /**
   * Session `sid`, which this node served itself, is served from now on by node `node`, where its
   * profile is: it is opened there with the agent's initialize, and its requests wait for that.
   */
  adopt(sid: string, node: string, owner: SessionOwner, opening: SessionOpening): void {
    const entry: ServedElsewhere = { ...owner, node, remote: '', opening };
    entry.placing = this.reopen(entry, node).finally(() => { entry.placing = undefined; });
    entry.placing.catch(() => { entry.gone = `node ${node} could not take this MCP session`; });
    this.sessions.set(sid, entry);
    log.info({ seat: owner.seat, profile: owner.profile, to: node }, 'an MCP session follows its profile to the node hosting it now');
  }

  /** A request of a known session: after its move, if it is moving, or opened again first if its node stopped. */
  private async inSession(sid: string, entry: ServedElsewhere, ask: Pending['ask'], sink: AnswerSink, calls: Array<string | number>): Promise<void> {
    if (entry.gone !== undefined && !entry.placing) {
      const from = entry.node;
      const to = this.placeFor(entry.profile) ?? this.node;
      entry.placing = this.reopen(entry, to).then(() => {
        entry.gone = undefined;
        log.info({ seat: entry.seat, profile: entry.profile, from, to }, 'an MCP session whose node stopped goes on where its profile is now');
      }).finally(() => { entry.placing = undefined; });
    }
    const there = entry.gone === undefined && !entry.placing && entry.node === this.node ? this.placeFor(entry.profile) : undefined;
    if (there !== undefined) {
      // Moved here once, and another node took the profile since: it follows again, and its session here ends.
      const here = entry.remote;
      entry.placing = this.reopen(entry, there).finally(() => { entry.placing = undefined; });
      void entry.placing.then(() => this.exchange(this.node, { op: 'req', id: 0, method: 'DELETE', path: entry.opening.path, headers: { 'mcp-session-id': here } })).catch(() => undefined);
    }
    if (entry.placing) {
      try { await entry.placing; } catch (e) { sink.refuse(502, (e as Error).message); return; }
    }
    if (entry.gone !== undefined) { sink.refuse(502, entry.gone); return; }
    const tells = entry.lostOn !== undefined && ask.body?.includes('"tools/call"') ? entry : undefined;
    this.send(entry.node, { ...ask, headers: { ...ask.headers, 'mcp-session-id': entry.remote } }, sink, { sid, calls, ...(tells ? { tells } : {}) });
  }

  /** Opens `entry` on node `to` with the agent's own initialize; a loss it has not told is read above the first call's answer there. */
  private async reopen(entry: ServedElsewhere, to: string): Promise<void> {
    const { path, headers, body } = entry.opening;
    const notice = entry.lostOn === undefined ? undefined : sessionMovedSentence(entry.lostOn, to);
    const init = await this.exchange(to, { op: 'req', id: 0, method: 'POST', path, headers: { ...headers, ...(notice ? { [NOTICE_HEADER]: encodeURIComponent(notice) } : {}) }, body });
    const remote = init.headers['mcp-session-id'];
    if (init.status !== 200 || !remote) {
      const said = /"message":"((?:[^"\\]|\\.)*)"/.exec(init.body)?.[1];
      throw new ForgeError('host_in_use', `node ${to} did not take this MCP session${said ? `: ${JSON.parse(`"${said}"`) as string}` : ` (HTTP ${init.status})`}`);
    }
    const version = headers['mcp-protocol-version'];
    await this.exchange(to, {
      op: 'req', id: 0, method: 'POST', path,
      headers: { accept: headers.accept ?? 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': remote, ...(version ? { 'mcp-protocol-version': version } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    entry.node = to;
    entry.remote = remote;
  }

  /** One request of this node's own, its whole answer collected. */
  private exchange(node: string, ask: Pending['ask']): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      let status = 0;
      let headers: Record<string, string> = {};
      const parts: Uint8Array[] = [];
      this.send(node, ask, {
        head: (s, h) => { status = s; headers = h; },
        chunk: (d) => { parts.push(d); },
        end: () => resolve({ status, headers, body: Buffer.concat(parts).toString('utf8') }),
        refuse: (_s, sentence) => reject(new ForgeError('host_in_use', sentence)),
        onClose: () => undefined,
      }, { calls: [] });
    });
  }

  private send(node: string, ask: Pending['ask'], sink: AnswerSink, meta: Pick<Pending, 'sid' | 'opens' | 'calls' | 'tells'>): void {
    const id = this.nextId++;
    const deadline = setTimeout(() => this.fail(id, `node ${node} did not answer within ${MCP_HEAD_DEADLINE_MS / 1000} s; call again`), MCP_HEAD_DEADLINE_MS);
    deadline.unref();
    const sent = { ...ask, id };
    this.pending.set(id, { sink, node, ask: sent, headed: false, deadline, stream: false, ...meta });
    sink.onClose(() => {
      if (!this.pending.delete(id)) return;
      clearTimeout(deadline);
      this.route(node, { op: 'abort', id });
    });
    this.route(node, sent);
  }

  /** To another node over NATS; to this node's own endpoint straight (a session moved here). */
  private route(node: string, m: McpAsk): void {
    if (node === this.node) this.serving.ask(this.node, m);
    else this.publish(subjects.mcp(node, this.node), m);
  }

  private answer(node: string, a: McpAnswer | undefined): void {
    const p = a && this.pending.get(a.id);
    if (!a || !p || p.node !== node) return;
    if (a.op === 'head') {
      clearTimeout(p.deadline);
      p.headed = true;
      p.stream = (a.headers['content-type'] ?? '').startsWith('text/event-stream');
      const sid = a.headers['mcp-session-id'];
      if (sid && p.opens && p.ask.body !== undefined) {
        const { [NOTICE_HEADER]: _told, ...headers } = p.ask.headers;
        this.sessions.set(sid, { ...p.opens, node, remote: sid, opening: { path: p.ask.path, headers, body: p.ask.body } });
      }
      // The agent keeps the id it was given, wherever its session is served now.
      p.sink.head(a.status, sid && p.sid ? { ...a.headers, 'mcp-session-id': p.sid } : a.headers);
    } else if (a.op === 'chunk') {
      p.sink.chunk(a.data);
    } else if (a.op === 'dropped') {
      this.fail(a.id, droppedSentence(node));
    } else {
      this.pending.delete(a.id);
      if (p.tells) p.tells.lostOn = undefined;
      p.sink.end();
    }
  }

  /** A forwarded request that will get no answer: the agent reads why. */
  private fail(id: number, sentence: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.deadline);
    if (!p.headed) {
      p.sink.refuse(502, sentence);
    } else if (p.stream) {
      // A call whose answer was streaming: each of its requests is answered with the sentence, as the owner would have.
      for (const rid of p.calls) p.sink.chunk(Buffer.from(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: rid, error: { code: -32000, message: sentence } })}\n\n`));
      p.sink.end();
    } else {
      p.sink.end();
    }
  }

  /**
   * Node `node` stopped answering: its sessions here are opened again where their profile is now
   * on their next request; a request it had not begun to answer goes there now, and a call it was
   * running is answered with the sentence.
   */
  nodeGone(node: string): void {
    const sentence = sessionGoneSentence(node);
    for (const at of this.sessions.values()) if (at.node === node && !at.placing) { at.gone = sentence; at.lostOn = node; }
    for (const [id, p] of [...this.pending]) {
      if (p.node !== node) continue;
      const entry = p.sid === undefined ? undefined : this.sessions.get(p.sid);
      if (!p.headed && entry) {
        this.pending.delete(id);
        clearTimeout(p.deadline);
        void this.inSession(p.sid!, entry, p.ask, p.sink, p.calls);
        continue;
      }
      if (entry && p.calls.length > 0) entry.lostOn = undefined;
      this.fail(id, sentence);
    }
    this.serving.nodeGone(node);
  }

  /**
   * The tokens changed: a session whose agent key no longer holds (revoked, expired) is over. Its
   * open requests (a running call, the client's stream) are answered with the sentence and closed,
   * and the node serving it ends it there, letting its seat go.
   */
  sweep(holds: (g: SessionOwner['grant']) => boolean): void {
    for (const [sid, entry] of [...this.sessions]) {
      if (holds(entry.grant)) continue;
      this.sessions.delete(sid);
      for (const [id, p] of [...this.pending]) if (p.sid === sid) this.fail(id, KEY_ENDED_SENTENCE);
      log.info({ seat: entry.seat, node: entry.node }, 'a forwarded MCP session ended: its agent key was revoked or expired');
      if (entry.gone !== undefined) continue;
      const end = (): Promise<unknown> => this.exchange(entry.node, { op: 'req', id: 0, method: 'DELETE', path: entry.opening.path, headers: { 'mcp-session-id': entry.remote } });
      (entry.placing ? entry.placing.then(end) : end()).catch(() => undefined);
    }
  }

  private publish(subject: string, m: McpAsk | McpAnswer): void {
    try { this.nc.publish(subject, packOp(m)); } catch (e) { log.warn({ err: e, subject }, 'a forwarded MCP message was not sent'); }
  }

  close(): void {
    for (const s of this.subs) s.unsubscribe();
    for (const id of [...this.pending.keys()]) this.fail(id, `node ${this.node} is stopping`);
    this.serving.close();
  }
}
