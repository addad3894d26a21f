/**
 * Records every agent tool call as an activity line: the MCP server a session registers its
 * tools on is handed over wrapped, so each tool's handler, browser and terminal alike, is timed
 * and its outcome noted without any tool knowing. The call's own answer is untouched.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { clip } from '../../shared/activity.js';
import type { SessionContext } from '../mcp/context.js';
import type { ActivityLog } from './log.js';

/** A tool's arguments said in a few words: what it acted on, never what it typed (a typed text may be a password). */
export function targetWords(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const a = args as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof a[k] === 'string' && a[k] !== '' ? a[k] as string : undefined);
  const parts: string[] = [];
  const element = str('element') ?? str('target') ?? str('ref');
  if (element) parts.push(element);
  const from = str('startElement') ?? str('startTarget') ?? str('startRef');
  const to = str('endElement') ?? str('endTarget') ?? str('endRef');
  if (from && to) parts.push(`${from} to ${to}`);
  if (str('url')) parts.push(str('url')!);
  if (str('key')) parts.push(`key ${str('key')}`);
  if (str('command')) parts.push(str('command')!);
  if (str('action')) parts.push(`${str('action')}${typeof a.index === 'number' ? ` ${a.index}` : ''}`);
  if (typeof a.text === 'string') parts.push(`${[...a.text].length} characters`);
  if (typeof a.data === 'string') parts.push(`${[...a.data].length} characters`);
  if (Array.isArray(a.fields)) parts.push(`${a.fields.length} field${a.fields.length === 1 ? '' : 's'}`);
  if (Array.isArray(a.values)) parts.push(a.values.filter((v) => typeof v === 'string').join(', '));
  if (typeof a.accept === 'boolean') parts.push(a.accept ? 'accept' : 'dismiss');
  if (str('message')) parts.push(str('message')!);
  return parts.length ? clip(parts.join(' · ')) : undefined;
}

function firstText(result: unknown): string {
  const content = (result as { content?: Array<{ type?: string; text?: string }> } | undefined)?.content ?? [];
  return content.find((c) => c.type === 'text' && typeof c.text === 'string')?.text ?? '';
}

type Handler = (...a: unknown[]) => unknown;

/** `server` as its tools see it, with every handler registered on it recorded in `activity`. */
export function recordingServer(server: McpServer, ctx: SessionContext, activity: ActivityLog): McpServer {
  const register = server.registerTool.bind(server) as (name: string, config: unknown, cb: Handler) => unknown;
  const wrapped = (name: string, config: unknown, cb: Handler): unknown => register(name, config, async (...a: unknown[]) => {
    const t0 = Date.now();
    const base = { seat: ctx.seat.key, by: 'agent' as const, what: name, ...(targetWords(a[0]) ? { target: targetWords(a[0])! } : {}) };
    try {
      const r = await cb(...a);
      const failed = (r as { isError?: boolean } | undefined)?.isError === true;
      activity.record({ ...base, at: Date.now(), ms: Date.now() - t0, outcome: failed ? 'error' : 'ok', ...(failed ? { detail: clip(firstText(r)) } : {}) });
      return r;
    } catch (e) {
      activity.record({ ...base, at: Date.now(), ms: Date.now() - t0, outcome: 'error', detail: clip((e as Error).message ?? String(e)) });
      throw e;
    }
  });
  return new Proxy(server, {
    get: (target, key) => {
      if (key === 'registerTool') return wrapped;
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as Handler).bind(target) : v;
    },
  });
}
