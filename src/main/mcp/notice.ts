/**
 * A sentence a session carries for its agent until its next tool call, read above that call's
 * answer: a session opened again on another node after the node serving it stopped says once
 * that the tabs it held there were lost. The node re-opening the session names it in a header of
 * the initialize; an agent that sent the header itself would only be told its own words.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { IncomingMessage } from 'node:http';
import type { SessionContext } from './context.js';

/** The initialize header carrying the notice, URI-encoded. */
export const NOTICE_HEADER = 'x-forge-notice';
/** Bound on a notice, characters: one sentence. */
const NOTICE_MAX_CHARS = 400;

/** The notice an initialize request carries, if any. */
export function noticeOf(req: IncomingMessage): string | undefined {
  const v = req.headers[NOTICE_HEADER];
  if (typeof v !== 'string' || v === '') return undefined;
  try { return decodeURIComponent(v).slice(0, NOTICE_MAX_CHARS); } catch { return undefined; }
}

type Handler = (...a: unknown[]) => unknown;

/** `server` as its tools see it: the first tool answer after `ctx.notice` was set starts with it. */
export function noticingServer(server: McpServer, ctx: SessionContext): McpServer {
  const register = server.registerTool.bind(server) as (name: string, config: unknown, cb: Handler) => unknown;
  const wrapped = (name: string, config: unknown, cb: Handler): unknown => register(name, config, async (...a: unknown[]) => {
    const r = await cb(...a) as { content?: unknown[] } | undefined;
    const notice = ctx.notice;
    if (notice === undefined || !r || !Array.isArray(r.content)) return r;
    ctx.notice = undefined;
    return { ...r, content: [{ type: 'text', text: notice }, ...r.content] };
  });
  return new Proxy(server, {
    get: (target, key) => {
      if (key === 'registerTool') return wrapped;
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as Handler).bind(target) : v;
    },
  });
}
