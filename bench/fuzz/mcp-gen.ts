/**
 * Inputs for the MCP endpoint: tool calls for every tool tools/list names with argument shapes
 * drawn from its own schema (conforming, one field wrong, junk, missing), JSON-RPC envelopes of
 * every method and none, raw and mutated bodies, wrong content types, junk session ids and keys,
 * batches, and a body past the 4 MiB bound.
 */
import type { Rng } from './prng.js';
import { mutate, randomNumber, randomString, randomValue } from './values.js';

/** A JSON Schema as tools/list gives it, the parts the generator reads. */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number; maximum?: number; exclusiveMinimum?: number;
  minLength?: number; maxLength?: number; maxItems?: number;
  anyOf?: Schema[]; oneOf?: Schema[];
}

export interface McpTool { name: string; inputSchema: Schema }

/** What conforming arguments may name: the local pages, the fuzzer's own tab. */
export interface McpScene { pagesBase: string; pageId?: string }

/** One request: how it is sent and, for a failure's report, what it is. */
export interface McpRequest {
  label: string;
  method: 'POST' | 'GET' | 'DELETE' | 'PUT';
  /** Which session id header it carries. */
  session: 'live' | 'none' | 'junk';
  /** The bearer: the agents' key, a junk one, or none. */
  auth: 'key' | 'junk' | 'none';
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** A fresh session's initialize: a session it opens is closed again by the fuzzer. */
  opensSession?: boolean;
  /** Query string for the URL beyond the session's seat. */
  query?: string;
}

/** Tools whose conforming call waits for a person's answer: called only with shapes the schema refuses. */
export const WAITS_FOR_A_PERSON = new Set(['browser_hand_off', 'terminal_hand_off']);
/** Tools whose conforming call ends the host or the terminal (the next call starts it again, seconds later): drawn rarely. */
const ENDS_SOMETHING = new Set(['browser_end_host', 'browser_close', 'terminal__close']);
/** Chance a conforming call of an ENDS_SOMETHING tool goes ahead (else it is shaped wrong). */
const ENDS_SOMETHING_CHANCE = 0.02;
/** The longest wait a conforming call may ask for, ms: a shell that prints no prompt mark waits it out. */
const CONFORMING_TIMEOUT_MAX_MS = 500;
/** Chance a conforming element argument is a role selector rather than a ref: one that matches nothing waits 15 s. */
const ROLE_SELECTOR_CHANCE = 0.02;
/**
 * Chance a conforming wait names text the scene's page does not hold (for `text`) or does hold
 * (for `textGone`): either waits out browser_wait_for's 30 s bound, so it is rare.
 */
const WAIT_OUT_CHANCE = 0.01;
/** The longest time a conforming browser_wait_for asks to wait, s: waiting is not where faults are. */
const CONFORMING_WAIT_MAX_S = 1;
/** Text the scene's pages hold (bench/pages/simple.html, text.html). */
const PAGE_TEXT = ['Hello', 'Some text'];
/** Bytes of the oversized body: past the 4 MiB bound of both the relay and the endpoint. */
const OVERSIZED_BODY_BYTES = 4 * 1024 * 1024 + 1024;
/** Chance of the oversized body: 4 MiB a time is costly. */
const OVERSIZED_CHANCE = 1 / 3000;

const METHODS = ['tools/call', 'tools/list', 'ping', 'initialize', 'notifications/initialized', 'notifications/cancelled', 'resources/list', 'prompts/list', 'logging/setLevel', 'completion/complete', 'sampling/createMessage', '', 'tools/', 'rpc.discover'];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/msgpack', '', 'application/json; charset=latin1', '*/*'];
const ACCEPTS = ['application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', '', 'text/html'];

function stringFor(rng: Rng, name: string, s: Schema, scene: McpScene): string {
  const n = name.toLowerCase();
  let v: string;
  if (n.includes('url')) v = rng.pick([`${scene.pagesBase}/simple.html`, `${scene.pagesBase}/text.html`, 'about:blank', 'data:text/html,<button>ok</button>', 'http://127.0.0.1:1/', `${scene.pagesBase}/missing.html`, 'javascript:void 0', 'not a url', randomString(rng, 40)]);
  else if (n.includes('function') || n.includes('expression') || n === 'script') v = rng.pick(['() => 1', '() => document.title', '() => { throw new Error("x") }', '() => new Array(10).fill("a").join("")', '1 +', 'document.body.innerHTML', randomString(rng, 40)]);
  else if (n === 'ref' || n.includes('element') || n.includes('target')) // Refs resolve or are refused at once; a role selector that matches nothing waits out the page-action bound, so it is rare.
    v = rng.chance(ROLE_SELECTOR_CHANCE) ? rng.pick(['role=button', 'role=link[name="x"]']) : rng.pick(['e1', 'e2', 'e3', 'e5', 'e999', 'e0', randomString(rng, 20)]);
  else if (n.includes('page')) v = rng.chance(0.6) && scene.pageId ? scene.pageId : rng.pick(['p-0', 'p-zzz', randomString(rng, 12)]);
  else if (n === 'text' || n === 'textgone') {
    const held = rng.pick(PAGE_TEXT);
    const absent = randomString(rng, 20);
    v = (n === 'text') !== rng.chance(WAIT_OUT_CHANCE) ? held : absent;
  } else if (n === 'key') v = rng.pick(['Enter', 'Tab', 'a', 'ArrowDown', 'Escape', 'Control+a', randomString(rng, 8)]);
  else if (n === 'command') v = rng.pick(['true', 'echo hi', '', randomString(rng, 40)]);
  else v = randomString(rng, 40);
  if (s.maxLength !== undefined) v = v.slice(0, s.maxLength);
  if (s.minLength !== undefined && v.length < s.minLength) v = v.padEnd(s.minLength, 'x');
  return v;
}

function numberFor(rng: Rng, name: string, s: Schema, integer: boolean): number {
  let lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
  let hi = s.maximum ?? 10_000;
  if (name.toLowerCase().includes('timeout')) hi = Math.min(hi, CONFORMING_TIMEOUT_MAX_MS);
  if (name === 'time') hi = Math.min(hi, CONFORMING_WAIT_MAX_S);
  if (hi < lo) [lo, hi] = [hi, lo];
  const v = lo + rng.next() * (hi - lo);
  return integer ? Math.round(v) : v;
}

/** A value the schema takes (as far as the parts read here say). */
export function conforming(rng: Rng, name: string, s: Schema, scene: McpScene): unknown {
  if (s.enum?.length) return rng.pick(s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return conforming(rng, name, rng.pick(alts), scene);
  const type = Array.isArray(s.type) ? rng.pick(s.type) : s.type;
  switch (type) {
    case 'string': return stringFor(rng, name, s, scene);
    case 'integer': return numberFor(rng, name, s, true);
    case 'number': return numberFor(rng, name, s, false);
    case 'boolean': return rng.chance(0.5);
    case 'null': return null;
    case 'array': return Array.from({ length: Math.min(s.maxItems ?? 4, rng.int(0, 4)) }, () => conforming(rng, name, s.items ?? {}, scene));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        if (s.required?.includes(k) || k.toLowerCase().includes('timeout') || rng.chance(0.5)) out[k] = conforming(rng, k, sub, scene);
      }
      return out;
    }
    default: return randomValue(rng);
  }
}

/** Arguments for a tool: conforming, one field wrong, junk fields, a field missing, or not an object at all. */
export function toolArguments(rng: Rng, tool: McpTool, scene: McpScene): { how: string; args: unknown } {
  const args = conforming(rng, tool.name, { ...tool.inputSchema, type: 'object' }, scene) as Record<string, unknown>;
  const props = Object.keys(tool.inputSchema.properties ?? {});
  const mayConform = !WAITS_FOR_A_PERSON.has(tool.name) && (!ENDS_SOMETHING.has(tool.name) || rng.chance(ENDS_SOMETHING_CHANCE));
  const r = rng.next();
  if (mayConform && r < 0.45) return { how: 'conforming arguments', args };
  if (r < 0.7 || !mayConform) {
    const k = props.length ? rng.pick(props) : randomString(rng, 10);
    // A person-waiting tool's call must not conform: its required field gets a value of another type.
    const wrong = WAITS_FOR_A_PERSON.has(tool.name) ? { ...args, [tool.inputSchema.required?.[0] ?? k]: rng.pick([null, 12345, [], { x: 1 }]) } : { ...args, [k]: randomValue(rng) };
    return { how: `a wrong value in ${k}`, args: wrong };
  }
  if (r < 0.8) return { how: 'junk fields', args: { ...args, [randomString(rng, 10)]: randomValue(rng) } };
  if (r < 0.9) {
    const req = tool.inputSchema.required ?? [];
    const gone = { ...args };
    if (req.length) delete gone[rng.pick(req)];
    return { how: 'a required field missing', args: gone };
  }
  return { how: 'arguments that are not an object', args: rng.pick([null, 1, 'x', [1, 2], true, randomValue(rng)]) };
}

function rpcId(rng: Rng): unknown {
  return rng.chance(0.8) ? rng.int(1, 1e6) : rng.pick([null, 'x', -1, 1.5, {}, [], true, randomString(rng, 10)]);
}

/** A string with its lone surrogates replaced: a URL cannot carry them. */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** A string a header can carry (visible ASCII): the client itself refuses anything else before sending. */
function headerSafe(s: string): string {
  return s.replace(/[^\x21-\x7e]/g, 'x') || 'x';
}

const baseHeaders = (): Record<string, string> => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });

/** One request to the endpoint. */
/**
 * One request. `envelopes`: only the requests that are not a tool call shaped from its schema
 * (envelopes of every method, mutated bodies, content types, session ids, keys, batches, the
 * oversized body): the JSON-RPC door at its own pace, where a shaped call waits for a page.
 */
export function mcpRequest(rng: Rng, tools: McpTool[], scene: McpScene, envelopes = false): McpRequest {
  if (rng.chance(OVERSIZED_CHANCE)) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browser_type', arguments: { text: 'x'.repeat(OVERSIZED_BODY_BYTES) } } });
    return { label: `a body of ${body.length} bytes`, method: 'POST', session: 'live', auth: 'key', headers: baseHeaders(), body };
  }
  const r = envelopes ? 0.5 + rng.next() * 0.5 : rng.next();
  if (r < 0.5) {
    const tool = rng.pick(tools);
    const { how, args } = toolArguments(rng, tool, scene);
    return { label: `${tool.name}: ${how}`, method: 'POST', session: 'live', auth: 'key', headers: baseHeaders(), body: JSON.stringify({ jsonrpc: '2.0', id: rpcId(rng), method: 'tools/call', params: { name: tool.name, arguments: args } }) };
  }
  if (r < 0.65) {
    const method = rng.chance(0.85) ? rng.pick(METHODS) : randomString(rng, 30);
    const envelope: Record<string, unknown> = { jsonrpc: rng.chance(0.9) ? '2.0' : randomValue(rng), method, params: rng.chance(0.5) ? randomValue(rng) : { name: rng.pick(tools).name, arguments: randomValue(rng) } };
    if (rng.chance(0.85)) envelope.id = rpcId(rng);
    if (method === 'initialize') return { label: 'initialize on a live session', method: 'POST', session: 'live', auth: 'key', headers: baseHeaders(), body: JSON.stringify(envelope) };
    return { label: `${method.slice(0, 30) || '(empty method)'}: a random envelope`, method: 'POST', session: rng.chance(0.8) ? 'live' : 'junk', auth: 'key', headers: baseHeaders(), body: JSON.stringify(envelope) };
  }
  if (r < 0.75) {
    const tool = rng.pick(tools);
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: toolArguments(rng, tool, scene).args } });
    const bytes = mutate(rng, new TextEncoder().encode(text));
    return { label: `${tool.name}: a mutated body`, method: 'POST', session: 'live', auth: 'key', headers: baseHeaders(), body: bytes };
  }
  if (r < 0.82) {
    const headers: Record<string, string> = { 'content-type': rng.pick(CONTENT_TYPES), accept: rng.pick(ACCEPTS) };
    if (rng.chance(0.3)) headers['mcp-protocol-version'] = rng.pick(['2025-03-26', '2024-11-05', '1999-01-01', headerSafe(randomString(rng, 12))]);
    return { label: `tools/list with content-type "${headers['content-type']}" and accept "${headers.accept}"`, method: 'POST', session: 'live', auth: 'key', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) };
  }
  if (r < 0.87) {
    const method = rng.pick(['POST', 'GET', 'DELETE', 'PUT'] as const);
    return { label: `${method} with a junk session id`, method, session: 'junk', auth: 'key', headers: { ...baseHeaders(), ...(rng.chance(0.5) ? {} : { 'mcp-session-id': headerSafe(randomString(rng, 40)) }) }, body: method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) : undefined };
  }
  if (r < 0.9) {
    return { label: 'a junk or missing bearer', method: 'POST', session: rng.chance(0.5) ? 'live' : 'none', auth: rng.chance(0.5) ? 'junk' : 'none', headers: baseHeaders(), body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }) };
  }
  if (r < 0.94) {
    const n = rng.int(0, 6);
    const batch = Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: 100 + i, method: rng.pick(['tools/list', 'ping', 'tools/call']), params: { name: rng.pick(tools).name, arguments: randomValue(rng) } }));
    return { label: `a batch of ${n}`, method: 'POST', session: 'live', auth: 'key', headers: baseHeaders(), body: JSON.stringify(batch) };
  }
  if (r < 0.97) {
    const seat = rng.pick(['default/fuzz/extra', 'other/p/lead', 'default/fuzz', '', 'a/b/c/d', randomString(rng, 20), 'default/fuzz/' + 'x'.repeat(70)]);
    const cwd = rng.pick([undefined, '/', '/nonexistent', 'relative', randomString(rng, 20)]);
    const query = new URLSearchParams({ seat: wellFormed(seat), ...(cwd !== undefined ? { cwd: wellFormed(cwd) } : {}) }).toString();
    const init = { jsonrpc: '2.0', id: 5, method: 'initialize', params: rng.chance(0.8) ? { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } : randomValue(rng) };
    return { label: `initialize for seat "${seat.slice(0, 40)}" cwd ${String(cwd).slice(0, 30)}`, method: 'POST', session: 'none', auth: 'key', headers: baseHeaders(), body: JSON.stringify(init), opensSession: true, query };
  }
  return { label: 'random bytes', method: 'POST', session: rng.pick(['live', 'none'] as const), auth: 'key', headers: { 'content-type': rng.pick(CONTENT_TYPES), accept: rng.pick(ACCEPTS) }, body: rng.chance(0.5) ? rng.bytes(rng.size(2048)) : String(randomNumber(rng)) };
}
