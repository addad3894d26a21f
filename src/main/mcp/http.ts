/**
 * The MCP endpoint: Streamable HTTP at /mcp?seat=ORG/PROJECT/LABEL with a bearer token.
 * It listens on loopback; the relay forwards the public /mcp to it. One McpServer per session.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parseSeat, type Seat } from '../seat.js';
import { ForgeError, isForgeError } from '../../shared/errors.js';
import { log } from '../logging.js';
import type { SessionContext } from './context.js';
import type { TokenBook } from '../../workers/relay/tokens.js';
import { seatsCover, type AgentGrant } from '../../shared/grants.js';
import { seatEnvOf } from './seat-env.js';
import { NOTICE_HEADER, noticeOf, noticingServer } from './notice.js';

export interface McpHooks {
  /** The seat's profile key, or a refusal when the seat is not this server's org. */
  profileFor(seat: Seat): string;
  /** Registers every tool on a fresh session's server. */
  registerTools(server: McpServer, ctx: SessionContext): void;
  sessionClosed(ctx: SessionContext): void;
  /** On a cluster node: the sessions another node serves (see cluster/mcp-forward.ts). */
  elsewhere?: McpElsewhere;
}

/** Whose session it is: its seat, its profile and the key that opened it. */
export interface SessionOwner { seat: string; profile: string; grant: AgentGrant }
/** The agent's own initialize, kept so that its session can be opened again on another node. */
export interface SessionOpening { path: string; headers: Record<string, string>; body: string }

/** Sessions served by the node hosting their profile, when that is another node. */
export interface McpElsewhere {
  /** The node serving session `sid` and its seat, when it is another node. */
  servedBy(sid: string | undefined): { node: string; seat: string } | undefined;
  /** The other node a new session for `profileKey` is served by, or undefined: this one. */
  nodeFor(profileKey: string): string | undefined;
  forward(node: string, owner: SessionOwner, req: IncomingMessage, res: ServerResponse, body: unknown): void;
  /** Session `sid`, served here so far, is served by node `node` from now on, where its profile went. */
  adopt(sid: string, node: string, owner: SessionOwner, opening: SessionOpening): void;
  /** The tokens changed: the sessions served elsewhere whose key no longer `holds` end, their open requests closed. */
  sweep(holds: (g: AgentGrant) => boolean): void;
}

/** The request headers an MCP endpoint reads; the rest (the agent's key above all) stay at the door. */
const MCP_REQUEST_HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', NOTICE_HEADER] as const;

/** The headers of `req` another node's endpoint is sent when the request is served there. */
export function mcpRequestHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of MCP_REQUEST_HEADERS) { const v = req.headers[h]; if (typeof v === 'string') headers[h] = v; }
  return headers;
}

/**
 * An MCP session with no call running, no stream open and no request for this long is reaped,
 * minutes: a crashed agent never says goodbye, and its seat (tabs "in use", its terminal) and the
 * session's ~110 KB would be held forever. An agent between turns (its person reading, thinking)
 * sends nothing for minutes; a client still there keeps its GET stream open and is never reaped.
 */
export const MCP_SESSION_IDLE_MINUTES = 60;
/** The idle bound in ms, for tests: `FORGE_MCP_SESSION_IDLE_MS` overrides MCP_SESSION_IDLE_MINUTES. */
export const MCP_SESSION_IDLE_ENV = 'FORGE_MCP_SESSION_IDLE_MS';
/** Longest and shortest time between looks for idle sessions, ms (a quarter of the bound between these). */
const IDLE_SWEEP_MAX_MS = 60_000;
const IDLE_SWEEP_MIN_MS = 100;
/**
 * At stop, how long running calls have to send their answer before the sessions are closed, ms: a
 * call the stop itself ended (a terminal__wait, a hand-off) answers in words instead of losing its
 * answer to the closing stream.
 */
export const MCP_CLOSE_GRACE_MS = 500;

interface Session {
  transport: StreamableHTTPServerTransport;
  ctx: SessionContext;
  grant: AgentGrant;
  /** Requests whose answer is still open: running calls (POST) and the client's GET stream. */
  open: { calls: number; streams: number };
  /** When the session last had a request start or end, ms since the epoch. */
  lastActive: number;
  /** Its initialize, should the session follow its profile to another node. */
  opening: SessionOpening;
}

function idleBoundMs(): number {
  const ms = Number(process.env[MCP_SESSION_IDLE_ENV]);
  return Number.isFinite(ms) && ms > 0 ? ms : MCP_SESSION_IDLE_MINUTES * 60_000;
}

export class McpEndpoint {
  private http?: Server;
  private sessions = new Map<string, Session>();
  private readonly idleMs = idleBoundMs();
  private readonly sweep: NodeJS.Timeout;
  private reaped = 0;
  /** Called whenever a call's answer ends: close() waits on them. */
  private callEnded: Array<() => void> = [];
  port = 0;

  constructor(private readonly book: TokenBook, private readonly hooks: McpHooks, private readonly version: string) {
    this.sweep = setInterval(() => this.reapIdle(), Math.max(IDLE_SWEEP_MIN_MS, Math.min(IDLE_SWEEP_MAX_MS, this.idleMs / 4)));
    this.sweep.unref();
  }

  /** Prometheus lines: open sessions, and sessions reaped for idleness since the start. */
  gauges(): string {
    return [
      '# TYPE forge_mcp_sessions gauge', `forge_mcp_sessions ${this.sessions.size}`,
      '# TYPE forge_mcp_sessions_reaped_total counter', `forge_mcp_sessions_reaped_total ${this.reaped}`,
    ].join('\n');
  }

  /** Ends the sessions idle past the bound, as a client's own close would: the seat is released. */
  private reapIdle(): void {
    const now = Date.now();
    for (const s of [...this.sessions.values()]) {
      if (s.open.calls > 0 || s.open.streams > 0 || now - s.lastActive < this.idleMs) continue;
      this.reaped++;
      s.ctx.log.info({ event: 'session_reaped', idleMs: now - s.lastActive }, 'mcp session reaped: no call, no stream and no request within the idle bound');
      void s.transport.close().catch(() => undefined);
    }
  }

  /** Counts the request as open on its session until its answer ends (finished, or the client went). */
  private track(s: Session, req: IncomingMessage, res: ServerResponse): void {
    const kind = req.method === 'GET' ? 'streams' : 'calls';
    s.open[kind]++;
    s.lastActive = Date.now();
    res.once('close', () => {
      s.open[kind]--;
      s.lastActive = Date.now();
      if (kind === 'calls') for (const w of this.callEnded.splice(0)) w();
    });
  }

  /** Resolves once no session has a call running, or after `ms`. */
  private async callsAnswered(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while ([...this.sessions.values()].some((s) => s.open.calls > 0) && Date.now() < deadline) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, deadline - Date.now());
        this.callEnded.push(() => { clearTimeout(t); r(); });
      });
    }
  }

  async listen(): Promise<number> {
    this.http = createServer((req, res) => {
      this.handle(req, res).catch((e) => {
        log.error({ err: e }, 'mcp request failed');
        if (!res.headersSent) res.writeHead(500).end(String((e as Error).message));
      });
    });
    await new Promise<void>((r) => this.http!.listen(0, '127.0.0.1', r));
    this.port = (this.http.address() as { port: number }).port;
    return this.port;
  }

  /** The agent key a request carries, or the refusal's words. */
  private authorized(req: IncomingMessage): AgentGrant | string {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const g = m ? this.book.agent(m[1]!) : undefined;
    if (g === 'person') return 'this is a person\'s token: it opens the viewer only; MCP takes the agents\' key';
    return g ?? 'the bearer token is missing, wrong, expired or revoked';
  }

  /** The tokens changed: sessions whose key was revoked or expired are ended now. */
  sweepGrants(): void {
    for (const s of [...this.sessions.values()]) {
      if (!this.book.holds(s.grant)) void s.transport.close().catch(() => undefined);
    }
    this.hooks.elsewhere?.sweep((g) => this.book.holds(g));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') { res.writeHead(404).end('not found'); return; }
    // This loopback endpoint is reached by the relay's proxy and the stdio bridge, never by a page:
    // a request with an Origin, or under a name that is not loopback, is a rebound page reaching the port.
    if (req.headers.origin !== undefined || !LOOPBACK_HOST.test(req.headers.host ?? '')) {
      res.writeHead(403, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'this endpoint answers the local relay and the stdio bridge only; use the server\'s /mcp' }, id: null }));
      return;
    }
    const grant = this.authorized(req);
    if (typeof grant === 'string') {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: grant }, id: null }));
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const away = this.hooks.elsewhere?.servedBy(typeof sid === 'string' ? sid : undefined);
    if (away) {
      // The key is checked here, where the agent connected, for every request, as for a session of this node.
      if (!seatsCover(grant.seats, away.seat)) {
        res.writeHead(403, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: `this agent key does not cover seat ${away.seat}` }, id: null }));
        return;
      }
      this.hooks.elsewhere!.forward(away.node, { seat: away.seat, profile: '', grant }, req, res, req.method === 'POST' ? await readJson(req) : undefined);
      return;
    }
    const existing = typeof sid === 'string' ? this.sessions.get(sid) : undefined;
    if (existing) {
      // Every request of a session is checked again: the key that carries it must cover its seat.
      if (!seatsCover(grant.seats, existing.ctx.seat.key)) {
        res.writeHead(403, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: `this agent key does not cover seat ${existing.ctx.seat.key}` }, id: null }));
        return;
      }
      // Its profile went to another node (taken while this node hosted none of it): the session follows, its seat here is let go.
      const moved = req.method === 'DELETE' ? undefined : this.hooks.elsewhere?.nodeFor(existing.ctx.profileKey);
      if (moved !== undefined) {
        const owner = { seat: existing.ctx.seat.key, profile: existing.ctx.profileKey, grant: existing.grant };
        this.hooks.elsewhere!.adopt(sid as string, moved, owner, existing.opening);
        void existing.transport.close().catch(() => undefined);
        this.hooks.elsewhere!.forward(moved, owner, req, res, req.method === 'POST' ? await readJson(req) : undefined);
        return;
      }
      this.track(existing, req, res);
      await existing.transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(typeof sid === 'string' ? 404 : 400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: typeof sid === 'string' ? 'the MCP session is gone; initialize a new one' : 'an MCP session starts with an initialize POST' }, id: null }));
      return;
    }
    const body = await readJson(req);
    if (typeof sid === 'string' || !isInitializeRequest(body)) {
      res.writeHead(typeof sid === 'string' ? 404 : 400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: typeof sid === 'string' ? 'the MCP session is gone; initialize a new one' : 'an MCP session starts with an initialize request' }, id: null }));
      return;
    }
    let seat: Seat;
    let profileKey: string;
    let cwd: string | undefined;
    let env: Record<string, string> | undefined;
    try {
      seat = parseSeat(url.searchParams.get('seat'));
      if (!seatsCover(grant.seats, seat.key)) throw new ForgeError('auth', `this agent key does not cover seat ${seat.key}; it covers ${grant.seats!.join(', ')}`);
      profileKey = this.hooks.profileFor(seat);
      cwd = sessionCwd(url.searchParams.get('cwd'));
      env = seatEnvOf(body);
    } catch (e) {
      res.writeHead(isForgeError(e, 'auth') ? 403 : 400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32602, message: (e as Error).message }, id: null }));
      return;
    }
    // A profile another node hosts is served there, the whole session: one node decides for its tabs.
    const at = this.hooks.elsewhere?.nodeFor(profileKey);
    if (at !== undefined) { this.hooks.elsewhere!.forward(at, { seat: seat.key, profile: profileKey, grant }, req, res, body); return; }
    const sessionId = randomUUID();
    const notice = noticeOf(req);
    const ctx: SessionContext = { seat, sessionId, profileKey, ...(cwd ? { cwd } : {}), ...(env ? { env } : {}), ...(notice ? { notice } : {}), log: log.child({ seat: seat.key, session: sessionId.slice(0, 8), profile: profileKey }) };
    const server = new McpServer({ name: 'forge', version: this.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    this.hooks.registerTools(noticingServer(server, ctx), ctx);
    const { [NOTICE_HEADER]: _told, ...headers } = mcpRequestHeaders(req);
    const opening = { path: req.url ?? '/mcp', headers, body: JSON.stringify(body) };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: (id) => { this.sessions.set(id, { transport, ctx, grant, open: { calls: 0, streams: 0 }, lastActive: Date.now(), opening }); },
    });
    transport.onclose = () => {
      // Runs before the SDK aborts the session's running calls, so they can tell an ended session from a cancel.
      ctx.ended = true;
      if (this.sessions.delete(sessionId)) this.hooks.sessionClosed(ctx);
    };
    await server.connect(transport);
    ctx.log.info({ event: 'session_open' }, 'mcp session opened');
    await transport.handleRequest(req, res, body);
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await this.callsAnswered(MCP_CLOSE_GRACE_MS);
    for (const s of [...this.sessions.values()]) await s.transport.close().catch(() => undefined);
    this.sessions.clear();
    await new Promise<void>((r) => (this.http ? this.http.close(() => r()) : r()));
    this.http?.closeAllConnections();
  }
}

/** The Host a loopback request carries: a loopback name with this endpoint's port. */
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/;

/** Largest MCP request body, bytes: tool arguments, never files. */
const BODY_MAX_BYTES = 4 * 1024 * 1024;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > BODY_MAX_BYTES) throw new Error('an MCP request body is limited to 4 MiB');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try { return JSON.parse(text); } catch { return text; }
}

const INSTRUCTIONS = [
  'forge shares one browser and one terminal between you and your person.',
  'Browser tools drive your own tabs in your org profile\'s Chromium; terminal tools drive your seat\'s terminal.',
  'Never ask your person for a password, passcode or one-time code in text: hand them the page with browser_hand_off (or the terminal with terminal_hand_off).',
].join(' ');

/** The seat's working directory a session names: an absolute path to a directory that exists. */
function sessionCwd(cwd: string | null): string | undefined {
  if (cwd === null || cwd === '') return undefined;
  if (!isAbsolute(cwd)) throw new ForgeError('bad_request', `cwd must be an absolute path, not "${cwd}"`);
  let dir = false;
  try { dir = statSync(cwd).isDirectory(); } catch { /* reported below */ }
  if (!dir) throw new ForgeError('bad_request', `cwd ${cwd} is not a directory on the server's machine`);
  return cwd;
}
