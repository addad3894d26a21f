/**
 * The viewer hub: the main thread's side of the relay. Viewers are sockets the relay owns;
 * the hub keeps who they are and routes their control messages by kind to the surface that
 * handles them (browser, terminal, hand-offs). Nothing a viewer sends can throw past here.
 */
import type { Worker } from 'node:worker_threads';
type Transferable = import('node:worker_threads').TransferListItem;
import { encodeControl, type ClientMessageKind, type ClientMessageOf, type ServerMessage, type UncheckedMessage } from '../shared/protocol.js';
import type { FromRelay, ToRelay } from '../workers/relay/protocol.js';
import { isForgeError } from '../shared/errors.js';
import { log } from './logging.js';
import { refusedSentence, viewerMayDo, type ViewerGrant } from '../shared/grants.js';
import type { ActivityEvent } from '../shared/activity.js';
import { checkedMessage } from './viewer-messages-schema.js';

/** Close code for a viewer its credential no longer admits (its hand-off answered, its token revoked). */
export const CLOSE_FORBIDDEN = 4403;

export interface ViewerInfo {
  id: number;
  org: string;
  query: URLSearchParams;
  openedAt: number;
  /** What this viewer's credential may do (see shared/grants.ts); checked on every message. */
  grant: ViewerGrant;
  /** Set for a viewer that came in through a hand-off link: it may see that page only. */
  handoff?: string;
}

/** Longest sentence an error reply carries, characters: a reply never echoes unbounded input back. */
export const ERROR_MESSAGE_MAX_CHARS = 400;

/** An error's words cut to ERROR_MESSAGE_MAX_CHARS. */
export function boundedSentence(message: string): string {
  return message.length <= ERROR_MESSAGE_MAX_CHARS ? message : `${message.slice(0, ERROR_MESSAGE_MAX_CHARS - 1)}…`;
}

/** A check run when a viewer opens: a sentence refuses it (the socket is closed with it), undefined admits it. */
export type Admission = (viewer: ViewerInfo) => string | undefined;

/** Serves one kind of message, already checked against its schema. */
export type MessageHandler<K extends ClientMessageKind> = (viewer: ViewerInfo, msg: ClientMessageOf<K>) => void | Promise<void>;

/** A kind's door and handler: the message as it arrived is checked, then served. */
type Route = (viewer: ViewerInfo, msg: UncheckedMessage) => void | Promise<void>;

/**
 * Viewers served by another node, or served here for another node (see cluster/viewer-routing.ts):
 * `inbound` takes the relay's reports about viewers it claims; `outbound` takes what is meant
 * for viewers on other nodes and gives back what is left for this relay.
 */
export interface ViewerBridge {
  inbound(m: FromRelay): boolean;
  outbound(m: ToRelay): ToRelay | undefined;
}

export class ViewerHub {
  readonly viewers = new Map<number, ViewerInfo>();
  private handlers = new Map<string, Route>();
  private openListeners: Array<(v: ViewerInfo) => void> = [];
  private closeListeners: Array<(v: ViewerInfo) => void> = [];
  private fetchedListeners: Array<(path: string) => void> = [];
  private liveListeners: Array<(term: number, viewer: number) => void> = [];
  private admissions: Admission[] = [];
  private actedListeners: Array<(ev: ActivityEvent) => void> = [];
  /** Set on a cluster node. */
  bridge?: ViewerBridge;

  /** `theme`: `[client] theme`, told to every client in its welcome. */
  constructor(private readonly relay: Worker, private readonly theme: 'system' | 'dark' | 'light' = 'system') {}

  /**
   * Routes messages whose `t` is `kind` to `handler`, each checked against its kind's schema
   * first (see viewer-messages-schema.ts): a malformed one is refused in words and never reaches
   * it. One handler per kind.
   */
  on<K extends ClientMessageKind>(kind: K, handler: MessageHandler<K>): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for viewer message "${kind}" is already registered`);
    this.handlers.set(kind, (v, msg) => handler(v, checkedMessage(kind, msg)));
  }

  onOpen(cb: (v: ViewerInfo) => void): void { this.openListeners.push(cb); }
  /** Adds a check every opening viewer must pass before any listener hears of it. */
  admit(check: Admission): void { this.admissions.push(check); }
  onClose(cb: (v: ViewerInfo) => void): void { this.closeListeners.push(cb); }
  /** Hears every person's act a surface reports (took control, released, answered a hand-off). */
  onActed(cb: (ev: ActivityEvent) => void): void { this.actedListeners.push(cb); }

  /** A person on viewer `v` did `what` to `target` on `seat`'s tab or terminal: an activity line. */
  acted(v: ViewerInfo, seat: string, what: string, target: string, detail?: string): void {
    const who = v.grant.kind === 'link' ? 'the hand-off link' : v.grant.name;
    const ev: ActivityEvent = { at: Date.now(), seat, by: 'person', who, what, target, outcome: 'ok', ...(detail ? { detail } : {}) };
    for (const cb of this.actedListeners) safe(() => cb(ev));
  }

  /** A client fetched a saved download whole (its path on disk). */
  onDownloadFetched(cb: (path: string) => void): void { this.fetchedListeners.push(cb); }
  /** The relay sent a viewer its terminal repaint: it gets live output from here. */
  onTermLive(cb: (term: number, viewer: number) => void): void { this.liveListeners.push(cb); }

  send(viewer: number | number[], msg: ServerMessage): void {
    const viewers = Array.isArray(viewer) ? viewer : [viewer];
    if (viewers.length === 0) return;
    this.post({ t: 'send', viewers, data: encodeControl(msg) });
  }

  /**
   * Sends bytes the caller gives away: a buffer they fill whole moves to the relay without a copy
   * (a terminal frame is up to 256 KB, sent for every flush) and is empty here afterwards.
   */
  sendBinary(viewers: number[], data: Uint8Array): void {
    if (!viewers.length) return;
    const whole = data.buffer instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
    this.post({ t: 'send_binary', viewers, data }, whole ? [data.buffer as ArrayBuffer] : undefined);
  }

  close(viewer: number, code: number, reason: string): void {
    this.post({ t: 'close_viewer', viewer, code, reason });
  }

  /**
   * Ends, at once, every viewer `pred` picks: it is forgotten here before its socket is closed, so
   * nothing it still sends is routed and what it held (a controller role) is let go now.
   */
  closeWhere(pred: (v: ViewerInfo) => boolean, code: number, reason: string): void {
    for (const v of [...this.viewers.values()]) {
      if (!pred(v)) continue;
      this.forget(v);
      this.close(v.id, code, reason);
    }
  }

  private forget(v: ViewerInfo): void {
    if (!this.viewers.delete(v.id)) return;
    for (const cb of this.closeListeners) safe(() => cb(v));
  }

  post(m: ToRelay, transfer?: Transferable[]): void {
    const left = this.bridge ? this.bridge.outbound(m) : m;
    if (left) this.relay.postMessage(left, transfer as never);
  }

  /** Called with every message the relay reports. */
  dispatch(m: FromRelay): void {
    if (this.bridge?.inbound(m)) return;
    this.serve(m);
  }

  /** Serves a viewer's report here, whichever node its socket is on. */
  serve(m: FromRelay): void {
    switch (m.t) {
      case 'open': {
        const v: ViewerInfo = { id: m.viewer, org: m.org, query: new URLSearchParams(m.query), openedAt: Date.now(), grant: m.grant, ...(m.grant.kind === 'link' ? { handoff: m.grant.handoff } : {}) };
        const refusal = this.admissions.map((check) => { try { return check(v); } catch (e) { return (e as Error).message; } }).find((r) => r !== undefined);
        if (refusal !== undefined) { this.close(v.id, CLOSE_FORBIDDEN, refusal); return; }
        this.viewers.set(v.id, v);
        // First word to the client: who it is and whether its credential may take control (a watcher's page greys the button).
        this.send(v.id, { t: 'welcome', viewerId: v.id, org: v.org, mayControl: viewerMayDo(v.grant, 'control'), link: v.grant.kind === 'link', theme: this.theme });
        for (const cb of this.openListeners) safe(() => cb(v));
        break;
      }
      case 'close': {
        const v = this.viewers.get(m.viewer);
        if (v) this.forget(v);
        break;
      }
      case 'term_live':
        for (const cb of this.liveListeners) safe(() => cb(m.term, m.viewer));
        break;
      case 'download_fetched':
        for (const cb of this.fetchedListeners) safe(() => cb(m.path));
        break;
      case 'message': {
        const v = this.viewers.get(m.viewer);
        if (!v) return;
        void this.route(v, m.msg);
        break;
      }
    }
  }

  private async route(v: ViewerInfo, msg: UncheckedMessage): Promise<void> {
    const id = typeof msg.id === 'number' && Number.isSafeInteger(msg.id) ? { id: msg.id } : {};
    if (msg.t === 'ping') { this.send(v.id, { t: 'pong', ...id }); return; }
    const handler = this.handlers.get(msg.t);
    if (!handler) {
      this.send(v.id, { t: 'error', for: msg.t, message: `unknown message kind "${msg.t}"; it was ignored`, ...id });
      return;
    }
    // The door: what this viewer's credential does not list is refused before any handler sees it.
    if (!viewerMayDo(v.grant, msg.t)) {
      this.send(v.id, { t: 'error', for: msg.t, message: refusedSentence(v.grant, msg.t), ...id });
      return;
    }
    try {
      await handler(v, msg);
    } catch (e) {
      const message = isForgeError(e) ? e.message : `the server could not handle "${msg.t}": ${(e as Error).message}`;
      if (!isForgeError(e)) log.warn({ err: e, kind: msg.t, viewer: v.id }, 'viewer message failed');
      // A viewer that was closed meanwhile (its hand-off answered) hears nothing more.
      if (this.viewers.has(v.id)) this.send(v.id, { t: 'error', for: msg.t, message: boundedSentence(message), ...id });
    }
  }
}

function safe(fn: () => void): void {
  try { fn(); } catch (e) { log.error({ err: e }, 'viewer listener failed'); }
}
