/**
 * The viewer socket: one WebSocket to /ws, whose first message is `hello` with the page's token,
 * reconnected with backoff and kept alive by pings. The token goes in the hello, not the URL: a
 * token the server refuses at the URL is an HTTP 401 the page cannot read (the socket just fails,
 * as if the network were down, and the page would reconnect for ever), while a refused hello
 * closes the socket with the server's words (a restarted server's new link, a revoked token).
 * Control messages are msgpack both ways; binary frames go to whoever
 * listens for their kind. Everything that depends on the socket re-subscribes on `open`.
 */
import { applyTheme, themeChoice } from './theme.js';
import { decodeServerMessage, encodeControl, type ClientMessage, type ServerMessage } from '../../src/shared/protocol.js';
import { TERM_STATE } from '../../src/shared/terminal.js';
import { PING_PERIOD_MS, RECONNECT_FACTOR, RECONNECT_FIRST_MS, RECONNECT_MAX_MS } from './limits.js';

/** `ended`: the server refused this page's credential (a hand-off answered, a token revoked); it does not reconnect. */
export type LinkState = 'connecting' | 'open' | 'down' | 'ended';

/** Close codes by which the server says this page's credential opens nothing more: reconnecting would be refused again. */
const CREDENTIAL_ENDED_CODES = new Set([4401, 4403]);

/** The socket's state in the person's words, wherever the page says it. */
export const LINK_WORDS: Record<LinkState, string> = {
  connecting: 'connecting…',
  open: 'connected',
  down: `${TERM_STATE.connectionDown}…`,
  ended: 'this link opens nothing more',
};

/** What the page says of a message it could not send because the socket is down. */
export const NOT_SENT = 'Not sent - the connection is down.';

type Listener<T> = (v: T) => void;

export class Connection {
  state: LinkState = 'connecting';
  /** This socket's viewer id and org, from the server's welcome. */
  viewerId = 0;
  org = '';
  /** Whether this page's credential may take control (a watch-only token may not), from the welcome. */
  mayControl = true;
  /** The server's words when it ended this page's credential (state `ended`). */
  endedReason = '';
  private ws: WebSocket | null = null;
  private wait = RECONNECT_FIRST_MS;
  private retry: number | undefined;
  private ping: number | undefined;
  private stopped = false;
  private readonly messageListeners = new Set<Listener<ServerMessage>>();
  private readonly binaryListeners = new Map<number, Set<Listener<ArrayBuffer>>>();
  private readonly stateListeners = new Set<Listener<LinkState>>();

  constructor(private readonly url: string, private readonly token?: string) {}

  /** The socket for this page: same host, /ws, the page's token in its hello; the page's colours follow the server's `[client] theme` once it welcomes. */
  static forPage(token: string): Connection {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const conn = new Connection(`${scheme}//${location.host}/ws`, token);
    applyTheme();
    conn.onMessage((m) => { if (m.t === 'welcome') applyTheme(themeChoice(m.theme)); });
    return conn;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.ping);
    this.ws?.close(1000, 'the page closed');
    this.ws = null;
  }

  /** Sends a control message; false when the socket is not open (the caller says so, nothing queues). */
  send(msg: ClientMessage): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(encodeControl(msg));
    return true;
  }

  onMessage(cb: Listener<ServerMessage>): () => void {
    this.messageListeners.add(cb);
    return () => this.messageListeners.delete(cb);
  }

  /** Binary messages whose first byte is `kind` (1 browser frames, 4 terminal bytes). */
  onBinary(kind: number, cb: Listener<ArrayBuffer>): () => void {
    let set = this.binaryListeners.get(kind);
    if (!set) {
      set = new Set();
      this.binaryListeners.set(kind, set);
    }
    set.add(cb);
    return () => set!.delete(cb);
  }

  /** Called with every state change, and at once with the current state. */
  onState(cb: Listener<LinkState>): () => void {
    this.stateListeners.add(cb);
    cb(this.state);
    return () => this.stateListeners.delete(cb);
  }

  private setState(s: LinkState): void {
    if (this.state === s) return;
    this.state = s;
    for (const cb of this.stateListeners) cb(s);
  }

  private open(): void {
    this.setState('connecting');
    const ws = new WebSocket(this.url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.onopen = () => {
      // First, before anything that listens for `open` sends: the server reads nothing else until it.
      if (this.token !== undefined) ws.send(encodeControl({ t: 'hello', token: this.token }));
      this.wait = RECONNECT_FIRST_MS;
      clearInterval(this.ping);
      this.ping = window.setInterval(() => this.send({ t: 'ping' }), PING_PERIOD_MS);
      // With a hello, open is the server's welcome: the token was taken, and what follows may send.
      if (this.token === undefined) this.setState('open');
    };
    ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
      if (typeof e.data === 'string') return;
      const bytes = new Uint8Array(e.data);
      if (bytes.length === 0) return;
      const kind = bytes[0]!;
      const binary = this.binaryListeners.get(kind);
      // Control messages are msgpack maps (first byte 0x8X/0xDE/0xDF); frames start with their kind.
      if (binary && binary.size > 0 && kind < 0x80) {
        for (const cb of binary) cb(e.data);
        return;
      }
      const msg = decodeServerMessage(bytes);
      if (!msg) return;
      if (msg.t === 'welcome') {
        this.viewerId = msg.viewerId;
        this.org = msg.org;
        this.mayControl = msg.mayControl !== false;
      }
      for (const cb of this.messageListeners) cb(msg);
      if (msg.t === 'welcome') this.setState('open');
    };
    ws.onclose = (e: CloseEvent) => {
      clearInterval(this.ping);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (CREDENTIAL_ENDED_CODES.has(e.code)) {
        this.endedReason = e.reason || LINK_WORDS.ended;
        this.setState('ended');
        return;
      }
      this.setState('down');
      this.schedule();
    };
  }

  private schedule(): void {
    clearTimeout(this.retry);
    const jitter = 0.8 + Math.random() * 0.4;
    this.retry = window.setTimeout(() => this.open(), this.wait * jitter);
    this.wait = Math.min(RECONNECT_MAX_MS, this.wait * RECONNECT_FACTOR);
  }
}

/** A surface's view of the socket: control messages both ways, and binary frames as bytes. */
export interface SurfaceConn {
  send(msg: ClientMessage): void;
  onMessage(cb: (msg: ServerMessage) => void): () => void;
  onBinary(cb: (bytes: Uint8Array) => void): () => void;
  onState(cb: (state: LinkState) => void): () => void;
  /** Whether this page's credential may take control. */
  mayControl(): boolean;
}

/** This socket as a lazily loaded surface (the terminal's) takes it; `kind` is its frame kind. */
export function surfaceConn(conn: Connection, kind: number): SurfaceConn {
  return {
    send: (m) => { conn.send(m); },
    onMessage: (cb) => conn.onMessage(cb),
    onBinary: (cb) => conn.onBinary(kind, (buf) => cb(new Uint8Array(buf))),
    onState: (cb) => conn.onState(cb),
    mayControl: () => conn.mayControl,
  };
}
