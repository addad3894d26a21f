/**
 * The raw CDP door on the relay: `/cdp/<page id>` (one tab's target) and `/cdp?seat=…` (the
 * seat's browser-level endpoint). The relay checks the Host and Origin, the agents' key and the
 * seat it names, then carries each socket's text messages to the main thread and back; the main
 * thread (src/main/browser/cdp-door.ts) holds the rules about tabs and the browser's own socket,
 * which never leaves loopback.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocket } from './uws.js';
import { misdirected } from './app.js';
import type { ServedNames } from './origin.js';
import type { TokenBook } from './tokens.js';
import { seatsCover, type AgentGrant } from '../../shared/grants.js';
import { GRANT_SWEEP_MS } from './door.js';
import { CDP_CLOSE_GOING_AWAY, CDP_CLOSE_INTERNAL, CDP_CLOSE_NOT_TEXT, CDP_CLOSE_TOO_BIG, CDP_CLOSE_UNAUTHORIZED, closeReason, type CdpFromRelay, type CdpToRelay } from './cdp-protocol.js';

/**
 * Largest CDP message a client may send, bytes: a command's parameters (a script, a file input's
 * paths, a long HTML string); past it the socket closes 1009 in words.
 */
export const CDP_MESSAGE_MAX_BYTES = 16 * 1024 * 1024;
/** uWS's own inbound ceiling, bytes: above forge's bound, so forge's 1009 with words is what a client sees. */
const UWS_CDP_PAYLOAD_CEILING_BYTES = 2 * CDP_MESSAGE_MAX_BYTES;
/**
 * Answers a CDP client may leave unread, bytes: a full-page screenshot is tens of MiB of base64.
 * Past it uWS closes the socket: a dropped CDP answer would leave the client waiting forever.
 */
const CDP_MAX_BACKPRESSURE_BYTES = 64 * 1024 * 1024;
/** Seconds a CDP socket may sit silent before uWS pings it closed; uWS pings on its own well inside it. */
const CDP_IDLE_TIMEOUT_S = 120;

/** A page id as tabs carry it (`p-` and 8 hex digits); anything else in the path is refused before main is asked. */
const PAGE_ID = /^p-[0-9a-f]{8}$/;
/** A seat as MCP takes it: ORG/PROJECT/LABEL. */
const SEAT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const WORDS = {
  noToken: 'raw CDP needs the agents\' key: Authorization: Bearer <token> or ?token=<token> (token in server.json)\n',
  person: 'this is a person\'s token or a hand-off link: it opens the viewer only; raw CDP takes the agents\' key\n',
  wrong: 'the bearer token is missing, wrong, expired or revoked\n',
  revoked: 'the agents\' key this socket came with was revoked or has expired',
  notText: 'CDP messages are JSON text; a binary message was refused',
  tooBig: `a CDP message is limited to ${CDP_MESSAGE_MAX_BYTES / (1024 * 1024)} MiB`,
  slow: 'this client left more than 64 MiB of answers unread; the socket was closed',
} as const;

interface CdpSocket {
  conn: number;
  seat: string;
  pageId: string | null;
  grant: AgentGrant;
  closed: boolean;
}

export interface CdpDoorDeps {
  app: TemplatedApp;
  book: TokenBook;
  /** The names the relay answers to, once it listens. */
  names: () => ServedNames | undefined;
  post: (m: CdpFromRelay) => void;
}

/** The agent key a request carries (header first, else `?token=`), or the refusal as status and words. */
function admit(req: HttpRequest, query: URLSearchParams, book: TokenBook): { grant: AgentGrant } | { status: string; words: string } {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.getHeader('authorization'));
  const secret = m?.[1] ?? query.get('token');
  if (!secret) return { status: '401 Unauthorized', words: WORDS.noToken };
  const g = book.agent(secret);
  if (g === 'person') return { status: '403 Forbidden', words: WORDS.person };
  if (!g) return { status: '401 Unauthorized', words: WORDS.wrong };
  return { grant: g };
}

/** The seat a socket acts for: `?seat=`, else the one seat the key is limited to; the key must cover it. */
function seatOf(query: URLSearchParams, grant: AgentGrant): { seat: string } | { status: string; words: string } {
  const named = query.get('seat');
  const only = grant.seats?.length === 1 && !grant.seats[0]!.includes('*') ? grant.seats[0]! : undefined;
  const seat = named ?? only;
  if (!seat) return { status: '400 Bad Request', words: 'name the seat this socket acts for: ?seat=ORG/PROJECT/LABEL\n' };
  if (!SEAT.test(seat)) return { status: '400 Bad Request', words: `a seat is ORG/PROJECT/LABEL (letters, digits, . _ -), not "${seat.slice(0, 200)}"\n` };
  if (!seatsCover(grant.seats, seat)) return { status: '403 Forbidden', words: `this agent key does not cover seat ${seat}; it covers ${grant.seats!.join(', ')}\n` };
  return { seat };
}

function refuse(res: HttpResponse, status: string, words: string): void {
  res.cork(() => res.writeStatus(status).writeHeader('content-type', 'text/plain; charset=utf-8').end(words));
}

/** Serves the two CDP routes on `app`; answers what main sends for its sockets. */
export function serveCdp(deps: CdpDoorDeps): { fromMain(m: CdpToRelay): void; closeAll(): void; readonly open: number } {
  const sockets = new Map<number, WebSocket<CdpSocket>>();
  let nextConn = 1;

  const behavior = {
    maxPayloadLength: UWS_CDP_PAYLOAD_CEILING_BYTES,
    idleTimeout: CDP_IDLE_TIMEOUT_S,
    maxBackpressure: CDP_MAX_BACKPRESSURE_BYTES,
    closeOnBackpressureLimit: 1,
    sendPingsAutomatically: true,
    upgrade: (res: HttpResponse, req: HttpRequest, context: unknown) => {
      if (misdirected(res, req, deps.names(), true)) return;
      const url = req.getUrl();
      const query = new URLSearchParams(req.getQuery() ?? '');
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const pageId = url === '/cdp' || url === '/cdp/' ? null : url.slice('/cdp/'.length);
      if (pageId !== null && !PAGE_ID.test(pageId)) { refuse(res, '404 Not Found', `"${pageId.slice(0, 64)}" is not a page id (p- and 8 hex digits); browser_tabs lists yours\n`); return; }
      const a = admit(req, query, deps.book);
      if ('status' in a) { refuse(res, a.status, a.words); return; }
      const s = seatOf(query, a.grant);
      if ('status' in s) { refuse(res, s.status, s.words); return; }
      res.upgrade<CdpSocket>({ conn: nextConn++, seat: s.seat, pageId, grant: a.grant, closed: false }, key, protocol, extensions, context as never);
    },
    open: (ws: WebSocket<CdpSocket>) => {
      const c = ws.getUserData();
      sockets.set(c.conn, ws);
      deps.post({ t: 'cdp_open', conn: c.conn, seat: c.seat, pageId: c.pageId, grant: c.grant });
    },
    message: (ws: WebSocket<CdpSocket>, message: ArrayBuffer, isBinary: boolean) => {
      const c = ws.getUserData();
      if (c.closed) return;
      if (message.byteLength > CDP_MESSAGE_MAX_BYTES) { end(ws, CDP_CLOSE_TOO_BIG, WORDS.tooBig); return; }
      if (isBinary) { end(ws, CDP_CLOSE_NOT_TEXT, WORDS.notText); return; }
      deps.post({ t: 'cdp_message', conn: c.conn, text: Buffer.from(message).toString('utf8') });
    },
    close: (ws: WebSocket<CdpSocket>) => {
      const c = ws.getUserData();
      c.closed = true;
      if (sockets.delete(c.conn)) deps.post({ t: 'cdp_closed', conn: c.conn });
    },
  };
  deps.app.ws<CdpSocket>('/cdp', behavior);
  deps.app.ws<CdpSocket>('/cdp/*', behavior);

  function end(ws: WebSocket<CdpSocket>, code: number, reason: string): void {
    const c = ws.getUserData();
    if (c.closed) return;
    c.closed = true;
    ws.end(code, closeReason(reason));
  }

  // A revoked or expired key closes its CDP sockets as it closes its MCP sessions.
  setInterval(() => {
    const now = Date.now();
    for (const ws of sockets.values()) if (!deps.book.holds(ws.getUserData().grant, now)) end(ws, CDP_CLOSE_UNAUTHORIZED, WORDS.revoked);
  }, GRANT_SWEEP_MS).unref();

  return {
    fromMain(m) {
      const ws = sockets.get(m.conn);
      if (!ws || ws.getUserData().closed) return;
      if (m.t === 'cdp_close') { end(ws, m.code, m.reason); return; }
      // uWS answers 2 when it dropped the message (past the backpressure bound): the socket is closing then.
      if (ws.send(m.text, false) === 2) end(ws, CDP_CLOSE_INTERNAL, WORDS.slow);
    },
    closeAll() {
      for (const ws of [...sockets.values()]) end(ws, CDP_CLOSE_GOING_AWAY, 'the server is stopping');
      sockets.clear();
    },
    get open() { return sockets.size; },
  };
}
