/**
 * The MCP endpoint's target: raw HTTP requests through the relay's public /mcp, each judged —
 * an answer always comes, a refusal is a JSON-RPC error or a tool result with isError and words
 * (or a plain sentence for a request the endpoint cannot read), and a refusal is a few KB at most.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { inputRng } from './prng.js';
import { Findings, Progress, type TargetResult } from './result.js';
import { probe, rssMb, settledRssMb, type ForgeServer } from './server.js';
import { mcpRequest, type McpRequest, type McpScene, type McpTool } from './mcp-gen.js';
import { PROBE_EVERY_INPUTS } from './socket-run.js';

/** Bound on one request's answer, ms: a conforming call waits at most 0.5 s in the shell, a page action 15 s, a navigation 30 s. */
const REQUEST_TIMEOUT_MS = 60_000;
/** Bytes of a refusal's answer: a sentence and its envelope, never the request echoed back. */
export const REFUSAL_MAX_BYTES = 8 * 1024;
/** Bytes of any answer: a snapshot is cut at 200 000 characters, an evaluate's result at 100 000. */
export const ANSWER_MAX_BYTES = 1024 * 1024;
/** Size under which a request is small, bytes: its refusal must be bounded by REFUSAL_MAX_BYTES. */
const SMALL_REQUEST_BYTES = 16 * 1024;

interface Verdict { refused: boolean; words?: string; broken?: string; sessionGone?: boolean; sessionId?: string }

export class McpDoor {
  sid = '';

  constructor(private readonly server: ForgeServer, private readonly seat: string) {}

  private url(query?: string): string {
    const u = new URL(this.server.mcpUrl);
    return `${u.origin}${u.pathname}?${query ?? `seat=${encodeURIComponent(this.seat)}`}`;
  }

  async send(req: McpRequest): Promise<{ status: number; type: string; body: string; sessionId?: string }> {
    const headers: Record<string, string> = { ...req.headers };
    if (req.auth === 'key') headers.authorization = `Bearer ${this.server.agentToken}`;
    else if (req.auth === 'junk') headers.authorization = 'Bearer fa_not-a-key';
    if (req.session === 'live' && this.sid) headers['mcp-session-id'] = this.sid;
    const res = await fetch(this.url(req.query), { method: req.method, headers, body: req.body as BodyInit | undefined, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const type = res.headers.get('content-type') ?? '';
    // A GET answered with an open event stream is the session's push channel: its headers are the answer.
    let body = '';
    if (req.method === 'GET' && type.includes('event-stream')) await res.body?.cancel();
    else body = await res.text();
    return { status: res.status, type, body, sessionId: res.headers.get('mcp-session-id') ?? undefined };
  }

  /** Opens the door's own session (initialize, then initialized). */
  async initialize(): Promise<void> {
    const init = await this.send({ label: 'initialize', method: 'POST', session: 'none', auth: 'key', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'forge-fuzz', version: '0' } } }) });
    if (!init.sessionId) throw new Error(`initialize gave no session (HTTP ${init.status}): ${init.body.slice(0, 200)}`);
    this.sid = init.sessionId;
    await this.send({ label: 'initialized', method: 'POST', session: 'live', auth: 'key', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  }

  async close(sid = this.sid): Promise<void> {
    await fetch(this.url(), { method: 'DELETE', headers: { authorization: `Bearer ${this.server.agentToken}`, 'mcp-session-id': sid } }).then((r) => r.text()).catch(() => undefined);
  }
}

/** The JSON-RPC messages in an answer's body: JSON, or the data lines of an event stream. */
function messagesOf(type: string, body: string): unknown[] | undefined {
  try {
    if (type.includes('event-stream')) return body.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
    const v = JSON.parse(body) as unknown;
    return Array.isArray(v) ? v : [v];
  } catch { return undefined; }
}

/** Whether one JSON-RPC message keeps the rules: an error has words, a tool result with isError has text. */
function judgeMessage(m: unknown, small: boolean): Verdict {
  if (typeof m !== 'object' || m === null) return { refused: false, broken: `an answer that is not a JSON-RPC message: ${JSON.stringify(m).slice(0, 120)}` };
  const o = m as { error?: { message?: unknown }; result?: { isError?: unknown; content?: Array<{ text?: unknown }> } };
  const size = Buffer.byteLength(JSON.stringify(m));
  if (small && (o.error || o.result?.isError === true) && size > REFUSAL_MAX_BYTES) return { refused: true, broken: `a refusal of ${size} bytes (bound ${REFUSAL_MAX_BYTES}): ${JSON.stringify(m).slice(0, 160)}` };
  if (o.error) {
    return typeof o.error.message === 'string' && o.error.message.trim() ? { refused: true, words: o.error.message } : { refused: true, broken: `a JSON-RPC error with no words: ${JSON.stringify(o.error).slice(0, 200)}` };
  }
  if (o.result?.isError === true) {
    const text = (o.result.content ?? []).map((c) => (typeof c?.text === 'string' ? c.text : '')).join('').trim();
    return text ? { refused: true, words: text } : { refused: true, broken: `a tool result with isError and no text: ${JSON.stringify(o.result).slice(0, 200)}` };
  }
  return { refused: false };
}

export function judgeAnswer(req: McpRequest, a: { status: number; type: string; body: string }): Verdict {
  const size = Buffer.byteLength(a.body);
  const reqSize = typeof req.body === 'string' ? Buffer.byteLength(req.body) : req.body?.length ?? 0;
  if (size > ANSWER_MAX_BYTES) return { refused: false, broken: `an answer of ${size} bytes (bound ${ANSWER_MAX_BYTES})` };
  if (a.status === 202 && !a.body) return { refused: false };
  if (req.method === 'GET' && a.status === 200 && a.type.includes('event-stream')) return { refused: false };
  const msgs = a.body ? messagesOf(a.type, a.body) : undefined;
  let v: Verdict;
  if (msgs === undefined || msgs.length === 0) {
    // Not JSON-RPC (a proxy's 413, a 404): a refusal all the same, and it must say something.
    if (a.status < 400) v = { refused: false, broken: `HTTP ${a.status} with a body that is no JSON-RPC answer: ${a.body.slice(0, 120)}` };
    else v = a.body.trim() ? { refused: true, words: `HTTP ${a.status}: ${a.body}` } : { refused: true, broken: `HTTP ${a.status} with no words` };
  } else {
    const each = msgs.map((m) => judgeMessage(m, reqSize < SMALL_REQUEST_BYTES));
    v = { refused: each.some((e) => e.refused), words: each.find((e) => e.words)?.words, broken: each.find((e) => e.broken)?.broken };
    if (a.status >= 400 && !v.refused) v.broken ??= `HTTP ${a.status} with an answer that is no refusal`;
  }
  // A refusal in plain words (not JSON-RPC) is bounded as a whole; a JSON-RPC one message by message, above.
  if (!v.broken && v.refused && msgs === undefined && reqSize < SMALL_REQUEST_BYTES && size > REFUSAL_MAX_BYTES) v.broken = `a refusal of ${size} bytes to a ${reqSize}-byte request (bound ${REFUSAL_MAX_BYTES})`;
  if (req.session === 'live' && a.status === 404) v.sessionGone = true;
  return v;
}

/** `envelopes`: the `mcp-json` target, every input but the tool calls shaped from a schema (see mcpRequest). */
export async function fuzzMcp(o: { server: ForgeServer; prober: Client; seed: number; inputs: number; first?: number; seat: string; scene: McpScene; envelopes?: boolean }): Promise<TargetResult> {
  const name = o.envelopes ? 'mcp-json' : 'mcp';
  const found = new Findings(name, o.seed);
  const r = found.result;
  const progress = new Progress(name, o.inputs);
  const door = new McpDoor(o.server, o.seat);
  await door.initialize();
  const tools = (await o.prober.listTools()).tools as unknown as McpTool[];
  r.rss_mb_before = rssMb(o.server.pid);
  const dead = async (index: number, label: string): Promise<boolean> => {
    const why = await probe(o.server, o.prober);
    if (!why) return false;
    r.crashes++;
    found.fault({ index, from: index, label, what: why });
    return true;
  };
  const first = o.first ?? 0;
  /** Time spent by the kind of request (a tool's name, a batch), ms: where a slow run goes. */
  const spent = new Map<string, number>();
  for (let i = first; i < first + o.inputs; i++) {
    const req = mcpRequest(inputRng(o.seed, i), tools, o.scene, o.envelopes);
    const t0 = Date.now();
    try {
      const a = await door.send(req);
      const v = judgeAnswer(req, a);
      if (v.refused) found.refused(v.words ?? '');
      if (v.broken) found.fault({ index: i, from: i, label: req.label, what: `${v.broken} (HTTP ${a.status})` });
      if (req.opensSession && a.sessionId) await door.close(a.sessionId);
      if (v.sessionGone) {
        found.fault({ index: i, from: i, label: req.label, what: `the fuzzer's live session was ended by this request: ${a.body.slice(0, 160)}` });
        await door.initialize();
      }
    } catch (e) {
      found.fault({ index: i, from: i, label: req.label, what: `no answer: ${(e as Error).message}` });
      if (await dead(i, req.label)) break;
    }
    const kind = req.label.split(':')[0]!;
    spent.set(kind, (spent.get(kind) ?? 0) + Date.now() - t0);
    r.inputs = i + 1 - first;
    if ((i + 1) % PROBE_EVERY_INPUTS === 0 && (await dead(i, req.label))) break;
    progress.tick(r.inputs, r, rssMb(o.server.pid));
  }
  if (!r.crashes) await dead(r.inputs, 'the end of the run');
  process.stderr.write(`fuzz: ${name} time by request kind: ${[...spent].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join(', ')}\n`);
  await door.close();
  r.rss_mb_after = await settledRssMb(o.server.pid);
  r.top_refusals = found.topRefusals();
  return r;
}
