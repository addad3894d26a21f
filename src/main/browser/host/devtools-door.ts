/**
 * The host's DevTools, forge's alone. Chromium is started with `--remote-debugging-pipe`, so it
 * listens on no port that another local user could reach: its DevTools speaks only on the two
 * pipe ends forge holds. forge's own clients (the driver, the capture worker, the sound, the
 * agents' raw CDP door) still connect the usual way, to a browser-level WebSocket this door
 * serves on loopback at a path with a random secret that lives only in forge's memory (and in a
 * file only forge's user can read). A request with another path, or with an `Origin` header (a
 * page's own WebSocket), is refused before the upgrade.
 *
 * Each client connection is its own browser session on the pipe (`Target.attachToBrowserTarget`),
 * so its auto-attach, target discovery and child sessions are its own, as on Chromium's own port:
 * the door renumbers each client's command ids, routes every answer and event to the client that
 * owns its session, and detaches a client's session when its socket closes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';

/** Largest message one client may send, bytes: above any CDP command forge's clients send (a script to inject), far below memory trouble. */
export const DEVTOOLS_CLIENT_MESSAGE_MAX_BYTES = 64 * 1024 * 1024;
/** How long a new client's browser session may take to attach, ms: Chromium answers in a few; past this the client's socket is closed. */
export const DEVTOOLS_SESSION_ATTACH_MS = 30_000;
/** Largest message read from Chromium's pipe, bytes: a bigger one means the pipe is out of step, and the host is ended. */
export const DEVTOOLS_PIPE_MESSAGE_MAX_BYTES = 512 * 1024 * 1024;

/** A CDP message as it crosses: a command (id, method), an answer (id, result or error) or an event (method). */
interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
  sessionId?: string;
}

/** How an answer from Chromium starts. */
const ANSWER_HEAD = Buffer.from('{"id":');
/** How an event from Chromium starts. */
const EVENT_HEAD = Buffer.from('{"method":"');
/** The domain whose events make and end sessions: always parsed. */
const TARGET_DOMAIN = Buffer.from('Target.');
/** The key Chromium appends last to a session's message. */
const SESSION_KEY = Buffer.from(',"sessionId":"');
/** Bytes at a message's end searched for its session's id: the key, an id (32 hex digits) and `"}`, with room. */
const SESSION_TAIL_BYTES = 96;
const CLOSE = Buffer.from('}');
/** Commands whose answers carry a new session's id: the door parses them, to know whose it is. */
const SESSION_MAKERS = new Set(['Target.attachToTarget', 'Target.attachToBrowserTarget']);

/** A message's session, read from its end. */
interface Tail { id: string; tailBytes: number }

/**
 * The session a message from Chromium is on, read from its end (`…},"sessionId":"S"}`): `tailBytes`
 * counts the bytes from the key's comma to the end. Undefined when it has none (the root session's).
 */
export function readSession(raw: Buffer): Tail | undefined {
  const from = Math.max(0, raw.length - SESSION_TAIL_BYTES);
  const at = raw.subarray(from).lastIndexOf(SESSION_KEY);
  if (at === -1 || raw[raw.length - 1] !== 0x7d || raw[raw.length - 2] !== 0x22) return undefined;
  const start = from + at;
  if (raw[start - 1] !== 0x7d) return undefined; // not after the message's params or result
  const id = raw.toString('latin1', start + SESSION_KEY.length, raw.length - 2);
  if (!/^[0-9A-Fa-f]+$/.test(id)) return undefined;
  return { id, tailBytes: raw.length - start };
}

interface Client {
  ws: WebSocket;
  /** The client's own browser session on the pipe, once attached. */
  session?: string;
  /** Messages sent before the session was attached, in order. */
  early: string[];
  closed: boolean;
}

/** A command on the pipe: whose it is and under which id the client sent it. */
interface Call {
  client?: Client;
  clientId: number;
  method: string;
  /** The door's own command: its answer is handed here, not to a client. */
  own?: (m: CdpMessage) => void;
}

export class DevtoolsDoor {
  /** `ws://127.0.0.1:<port>/devtools/browser/<secret>`: a browser-level endpoint for forge's own clients. */
  url = '';
  port = 0;
  private readonly secretPath = `/devtools/browser/${randomBytes(24).toString('hex')}`;
  private readonly calls = new Map<number, Call>();
  /** Every session on the pipe that a client owns (its browser session and the ones it attached). */
  private readonly sessions = new Map<string, Client>();
  private readonly clients = new Set<Client>();
  private nextId = 1;
  private http?: Server;
  private wss?: WebSocketServer;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;
  /** Writes to the pipe are held until the end of this turn of the event loop (see write). */
  private corked = false;

  /**
   * `toChromium` is Chromium's fd 3 (it reads commands there), `fromChromium` its fd 4. When the
   * pipe closes (Chromium ended) every client's socket closes, as they did when Chromium's own
   * port went away. `onUnreadable` is told when Chromium's side carries something the door cannot
   * read: the pipe is then out of step, and the host must end.
   */
  constructor(private readonly toChromium: Writable, fromChromium: Readable, private readonly onUnreadable: (why: string) => void) {
    fromChromium.on('data', (d: Buffer) => this.onPipeData(d));
    fromChromium.on('end', () => this.broken('Chromium closed its DevTools pipe'));
    fromChromium.on('error', (e) => this.broken(`Chromium's DevTools pipe failed: ${e.message}`));
    toChromium.on('error', (e) => this.broken(`Chromium's DevTools pipe failed: ${e.message}`));
  }

  /** Serves the loopback endpoint once Chromium answers on the pipe; rejects when it does not by `deadline`. */
  async open(deadline: number): Promise<void> {
    await this.ask('Browser.getVersion', {}, deadline);
    const http = createServer((_req, res) => { res.writeHead(404).end(); });
    const wss = new WebSocketServer({ noServer: true, maxPayload: DEVTOOLS_CLIENT_MESSAGE_MAX_BYTES, perMessageDeflate: false });
    http.on('upgrade', (req, socket, head) => {
      // A page's WebSocket always carries its Origin; forge's own clients send none.
      if (req.url !== this.secretPath || req.headers.origin !== undefined || this.ended) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    const address = http.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.url = `ws://127.0.0.1:${this.port}${this.secretPath}`;
    this.http = http;
    this.wss = wss;
  }

  /** Closes every client and the endpoint; the pipe is Chromium's to close with its process. */
  close(): void {
    this.ended = true;
    for (const c of this.clients) c.ws.terminate();
    this.clients.clear();
    this.wss?.close();
    this.http?.close();
    this.http?.closeAllConnections();
  }

  private broken(why: string, unreadable = false): void {
    if (this.ended) return;
    this.close();
    for (const call of this.calls.values()) call.own?.({ error: { message: why } });
    this.calls.clear();
    if (unreadable) this.onUnreadable(why);
  }

  /** The door's own command on the pipe's root session. */
  private ask(method: string, params: Record<string, unknown>, deadline: number, sessionId?: string): Promise<CdpMessage> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => { this.calls.delete(id); reject(new Error(`Chromium did not answer ${method} on its DevTools pipe in time`)); }, Math.max(0, deadline - Date.now()));
      this.calls.set(id, { clientId: 0, method, own: (m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(`Chromium refused ${method}: ${JSON.stringify(m.error)}`));
        else resolve(m);
      } });
      this.write({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    });
  }

  /**
   * Commands written in one turn of the event loop leave in one write: a call that asks the page
   * several things at once (its title, its snapshot, its document) costs one pipe write, not one
   * each.
   */
  private write(m: CdpMessage): void {
    if (this.ended) return;
    if (!this.corked) {
      this.corked = true;
      this.toChromium.cork();
      process.nextTick(() => { this.corked = false; this.toChromium.uncork(); });
    }
    this.toChromium.write(`${JSON.stringify(m)}\0`);
  }

  private accept(ws: WebSocket): void {
    const client: Client = { ws, early: [], closed: false };
    this.clients.add(client);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) { ws.close(1003, 'CDP messages are text'); return; }
      const text = data.toString();
      if (!client.session) client.early.push(text);
      else this.fromClient(client, text);
    });
    ws.on('close', () => this.dropClient(client));
    ws.on('error', () => this.dropClient(client));
    this.ask('Target.attachToBrowserTarget', {}, Date.now() + DEVTOOLS_SESSION_ATTACH_MS).then((m) => {
      const session = m.result?.sessionId;
      if (typeof session !== 'string') throw new Error('Chromium gave no browser session');
      if (client.closed) { this.write({ id: this.nextId++, method: 'Target.detachFromTarget', params: { sessionId: session } }); return; }
      client.session = session;
      this.sessions.set(session, client);
      for (const text of client.early.splice(0)) this.fromClient(client, text);
    }).catch(() => ws.terminate());
  }

  private dropClient(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    this.clients.delete(client);
    for (const [id, owner] of this.sessions) if (owner === client) this.sessions.delete(id);
    for (const [id, call] of this.calls) if (call.client === client) this.calls.delete(id);
    if (client.session) this.write({ id: this.nextId++, method: 'Target.detachFromTarget', params: { sessionId: client.session } });
  }

  private fromClient(client: Client, text: string): void {
    let m: CdpMessage;
    try { m = JSON.parse(text) as CdpMessage; } catch { client.ws.close(1007, 'a CDP message is JSON'); return; }
    if (typeof m.id !== 'number' || typeof m.method !== 'string') { client.ws.close(1007, 'a CDP command has a number id and a method'); return; }
    if (m.sessionId !== undefined && this.sessions.get(m.sessionId) !== client) {
      client.ws.send(JSON.stringify({ id: m.id, error: { code: -32001, message: 'Session with given id not found.' }, sessionId: m.sessionId }));
      return;
    }
    const id = this.nextId++;
    this.calls.set(id, { client, clientId: m.id, method: m.method });
    this.write({ ...m, id, sessionId: m.sessionId ?? client.session });
  }

  private onPipeData(d: Buffer): void {
    let start = 0;
    for (let end = d.indexOf(0); end !== -1; start = end + 1, end = d.indexOf(0, start)) {
      const piece = d.subarray(start, end);
      const whole = this.pending.length ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      this.pendingBytes = 0;
      this.fromChromium(whole);
    }
    if (start < d.length) {
      this.pending.push(d.subarray(start));
      this.pendingBytes += d.length - start;
      if (this.pendingBytes > DEVTOOLS_PIPE_MESSAGE_MAX_BYTES) this.broken('Chromium sent a DevTools message past the pipe\'s bound', true);
    }
  }

  private fromChromium(raw: Buffer): void {
    if (!this.passOn(raw)) this.fromChromiumParsed(raw);
  }

  /**
   * Routes an answer or event without parsing it, when its head and tail say all the door needs:
   * Chromium writes an answer as `{"id":N,…}` and an event as `{"method":"M",…}`, and puts a
   * session's id last (`…},"sessionId":"S"}`). Answers that make sessions, the Target domain's
   * events and anything shaped otherwise are parsed whole instead. Returns whether it was routed.
   */
  private passOn(raw: Buffer): boolean {
    const session = readSession(raw);
    if (raw.subarray(0, ANSWER_HEAD.length).equals(ANSWER_HEAD)) {
      let at = ANSWER_HEAD.length;
      let id = 0;
      for (let c = raw[at]; c !== undefined && c >= 0x30 && c <= 0x39; c = raw[++at]) id = id * 10 + c - 0x30;
      if (raw[at] !== 0x2c) return false;
      const call = this.calls.get(id);
      if (!call || call.own || SESSION_MAKERS.has(call.method)) return false;
      this.calls.delete(id);
      const client = call.client!;
      if (client.closed) return true;
      this.sendTo(client, Buffer.from(`{"id":${call.clientId}`), raw.subarray(at), session);
      return true;
    }
    if (!raw.subarray(0, EVENT_HEAD.length).equals(EVENT_HEAD) || raw.subarray(EVENT_HEAD.length, EVENT_HEAD.length + TARGET_DOMAIN.length).equals(TARGET_DOMAIN)) return false;
    if (!session) return true; // the root session's events: the door asked for none
    const client = this.sessions.get(session.id);
    if (client && !client.closed) this.sendTo(client, undefined, raw, session);
    return true;
  }

  /** Sends `body` (after `head`) to the client, its session's id dropped when it is the client's own browser session. */
  private sendTo(client: Client, head: Buffer | undefined, body: Buffer, session: Tail | undefined): void {
    const parts = head ? [head] : [];
    if (session !== undefined && session.id === client.session) parts.push(body.subarray(0, body.length - session.tailBytes), CLOSE);
    else parts.push(body);
    client.ws.send(parts.length === 1 ? parts[0] : Buffer.concat(parts), { binary: false });
  }

  private fromChromiumParsed(raw: Buffer): void {
    let m: CdpMessage;
    try { m = JSON.parse(raw.toString()) as CdpMessage; } catch { this.broken('Chromium sent an unreadable DevTools message', true); return; }
    if (typeof m.id === 'number') {
      const call = this.calls.get(m.id);
      if (!call) return;
      this.calls.delete(m.id);
      if (call.own) { call.own(m); return; }
      const client = call.client!;
      if (client.closed) return;
      const attached = m.result?.sessionId;
      if (call.method === 'Target.attachToTarget' && typeof attached === 'string') this.sessions.set(attached, client);
      m.id = call.clientId;
      if (m.sessionId === client.session) delete m.sessionId;
      client.ws.send(JSON.stringify(m));
      return;
    }
    if (!m.sessionId) return; // the root session's events: the door asked for none
    const client = this.sessions.get(m.sessionId);
    if (!client || client.closed) return;
    const child = m.params?.sessionId;
    if (m.method === 'Target.attachedToTarget' && typeof child === 'string') this.sessions.set(child, client);
    if (m.method === 'Target.detachedFromTarget' && typeof child === 'string') this.sessions.delete(child);
    if (m.sessionId === client.session) delete m.sessionId;
    client.ws.send(JSON.stringify(m));
  }
}
