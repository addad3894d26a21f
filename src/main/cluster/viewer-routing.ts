/**
 * Control routing for viewers across nodes. A viewer whose profile another node owns is served
 * there: its socket stays on the node it reached (which checked its token), its open, messages
 * and close go to the owner in order over one subject, and the owner's registry decides
 * everything (roles, layout, input) as for a viewer of its own. The owner's answers come back on
 * the reaching node's subject; a watch there becomes a subscription to the owner's frames.
 *
 * On the owner, such a viewer has an id of its own far above the relay's (REMOTE_VIEWER_BASE),
 * so every surface treats it as one more viewer and only the hub's posts tell it apart.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { FromRelay, ToRelay } from '../../workers/relay/protocol.js';
import type { ViewerGrant } from '../../shared/grants.js';
import type { ViewerBridge, ViewerHub } from '../viewers.js';
import { log } from '../logging.js';
import { packOp, senderOf, subjects, unpackOp, type PushOp, type ViewerOp } from './protocol.js';

function fromSender<T extends { from: string }>(op: T | undefined, subject: string): T | undefined {
  if (op && typeof op === 'object') op.from = senderOf(subject);
  return op;
}

/** Ids of viewers served here for other nodes start here: the relay's own count up from 1 and never reach it. */
export const REMOTE_VIEWER_BASE = 2 ** 40;

/** Close code for a viewer whose serving node stopped answering: 1012, "service restart", so its client reconnects. */
export const CLOSE_NODE_GONE = 1012;

/** The close reason a viewer reads (a WebSocket reason is at most 123 bytes). */
export function nodeGoneSentence(node: string): string {
  return `node ${node.slice(0, 40)} hosting this profile stopped answering; reconnecting`;
}

interface Origin { node: string; viewer: number }
interface Exported { source: number; frame: number }

export class ViewerRouting implements ViewerBridge {
  /** Viewers of this node's sockets served by another node: local id → that node. */
  private readonly servedElsewhere = new Map<number, string>();
  /** Viewers of other nodes served here: id here → where their socket is. */
  private readonly guests = new Map<number, Origin>();
  private readonly guestIds = new Map<string, number>();
  private nextGuest = REMOTE_VIEWER_BASE;
  /** What each guest watches here, and how many guests of a node watch each frame id. */
  private readonly guestWatch = new Map<number, Exported>();
  private readonly exportCounts = new Map<string, number>();
  private readonly subs: Subscription[];

  /** `servingNode`: the node that serves a viewer opening here with this query and credential (undefined: this node). */
  constructor(private readonly nc: NatsConnection, private readonly node: string, private readonly hub: ViewerHub, private readonly servingNode: (query: string, grant: ViewerGrant) => string | undefined) {
    this.subs = [
      // The sender is the subject's (NATS's permissions hold it to the node's own), whatever the message says.
      nc.subscribe(subjects.viewers(node, '*'), { callback: (_e, m) => this.guestOp(fromSender(unpackOp<ViewerOp>(m.data), m.subject)) }),
      nc.subscribe(subjects.pushes(node, '*'), { callback: (_e, m) => this.pushOp(fromSender(unpackOp<PushOp>(m.data), m.subject)) }),
    ];
  }

  private publish(subject: string, op: ViewerOp | PushOp): void {
    try { this.nc.publish(subject, packOp(op)); } catch (e) { log.warn({ err: e, subject }, 'a message to another node was not sent'); }
  }

  // ---- this node's sockets ----

  inbound(m: FromRelay): boolean {
    switch (m.t) {
      case 'open': {
        const at = this.servingNode(m.query, m.grant);
        if (at === undefined || at === this.node) return false;
        this.servedElsewhere.set(m.viewer, at);
        this.hub.post({ t: 'served_by', viewer: m.viewer, node: at });
        this.publish(subjects.viewers(at, this.node), { op: 'open', from: this.node, viewer: m.viewer, org: m.org, query: m.query, grant: m.grant });
        return true;
      }
      case 'message': {
        const at = this.servedElsewhere.get(m.viewer);
        if (at === undefined) return false;
        this.publish(subjects.viewers(at, this.node), { op: 'message', from: this.node, viewer: m.viewer, msg: m.msg });
        return true;
      }
      case 'close': {
        const at = this.servedElsewhere.get(m.viewer);
        if (at === undefined) return false;
        this.servedElsewhere.delete(m.viewer);
        this.publish(subjects.viewers(at, this.node), { op: 'close', from: this.node, viewer: m.viewer });
        return true;
      }
      default: return false;
    }
  }

  /** The serving node's answers to this node's sockets: `from` must be the node serving the viewer. */
  private pushOp(op: PushOp | undefined): void {
    if (!op) return;
    const mine = (v: number): boolean => this.servedElsewhere.get(v) === op.from;
    switch (op.op) {
      case 'send': {
        const viewers = op.viewers.filter(mine);
        if (viewers.length) this.hub.post({ t: 'send', viewers, data: op.data });
        break;
      }
      case 'close': if (mine(op.viewer)) this.hub.post({ t: 'close_viewer', viewer: op.viewer, code: op.code, reason: op.reason }); break;
      case 'watch': if (mine(op.viewer)) this.hub.post({ t: 'watch_remote', viewer: op.viewer, node: op.from, frame: op.frame }); break;
    }
  }

  // ---- other nodes' sockets, served here ----

  private guestOp(op: ViewerOp | undefined): void {
    if (!op) return;
    const key = `${op.from}:${op.viewer}`;
    if (op.op === 'open') {
      if (this.guestIds.has(key)) return;
      const id = this.nextGuest++;
      this.guestIds.set(key, id);
      this.guests.set(id, { node: op.from, viewer: op.viewer });
      this.hub.post({ t: 'guest', viewer: id, node: op.from, remote: op.viewer });
      this.hub.serve({ t: 'open', viewer: id, org: op.org, query: op.query, grant: op.grant });
      return;
    }
    const id = this.guestIds.get(key);
    if (id === undefined) return;
    if (op.op === 'message') { this.hub.serve({ t: 'message', viewer: id, msg: op.msg }); return; }
    this.hub.serve({ t: 'close', viewer: id });
    this.setGuestWatch(id, undefined);
    this.guestIds.delete(key);
    this.guests.delete(id);
    this.hub.post({ t: 'guest', viewer: id, node: null, remote: op.viewer });
  }

  outbound(m: ToRelay): ToRelay | undefined {
    switch (m.t) {
      case 'send':
      case 'send_binary': {
        if (!m.viewers.some((v) => this.guests.has(v))) return m;
        const byNode = new Map<string, number[]>();
        const local: number[] = [];
        for (const v of m.viewers) {
          const g = this.guests.get(v);
          if (!g) { local.push(v); continue; }
          let list = byNode.get(g.node);
          if (!list) { list = []; byNode.set(g.node, list); }
          list.push(g.viewer);
        }
        // A copy: the caller may give the bytes away to the relay right after.
        const data = local.length ? m.data.slice() : m.data;
        for (const [node, viewers] of byNode) this.publish(subjects.pushes(node, this.node), { op: 'send', from: this.node, viewers, data });
        return local.length ? { ...m, viewers: local } : undefined;
      }
      case 'close_viewer': {
        const g = this.guests.get(m.viewer);
        if (!g) return m;
        this.publish(subjects.pushes(g.node, this.node), { op: 'close', from: this.node, viewer: g.viewer, code: m.code, reason: m.reason });
        return undefined;
      }
      case 'watch': {
        const g = this.guests.get(m.viewer);
        if (!g) return m;
        this.setGuestWatch(m.viewer, m.frame === null ? undefined : { source: m.source, frame: m.frame });
        this.publish(subjects.pushes(g.node, this.node), { op: 'watch', from: this.node, viewer: g.viewer, frame: m.frame });
        return undefined;
      }
      default: return m;
    }
  }

  /** A guest's watch moved: its node's export of a tab's frames starts with the first of its guests and ends with the last. */
  private setGuestWatch(id: number, next: Exported | undefined): void {
    const g = this.guests.get(id);
    if (!g) return;
    const prev = this.guestWatch.get(id);
    if (prev && next && prev.source === next.source && prev.frame === next.frame) return;
    if (prev) {
      this.guestWatch.delete(id);
      const k = `${g.node}:${prev.source}:${prev.frame}`;
      const n = (this.exportCounts.get(k) ?? 1) - 1;
      if (n > 0) this.exportCounts.set(k, n);
      else {
        this.exportCounts.delete(k);
        this.hub.post({ t: 'frame_export', node: g.node, source: prev.source, frame: prev.frame, on: false });
      }
    }
    if (next) {
      this.guestWatch.set(id, next);
      const k = `${g.node}:${next.source}:${next.frame}`;
      const n = (this.exportCounts.get(k) ?? 0) + 1;
      this.exportCounts.set(k, n);
      if (n === 1) this.hub.post({ t: 'frame_export', node: g.node, source: next.source, frame: next.frame, on: true });
    }
  }

  /**
   * Node `node` stopped answering: this node's viewers it served are closed with a sentence (their
   * clients reconnect, and are served where the profile is now), and its viewers served here end.
   */
  nodeGone(node: string): void {
    for (const [viewer, at] of [...this.servedElsewhere]) {
      if (at !== node) continue;
      this.servedElsewhere.delete(viewer);
      this.hub.post({ t: 'served_by', viewer, node: null });
      this.hub.post({ t: 'close_viewer', viewer, code: CLOSE_NODE_GONE, reason: nodeGoneSentence(node) });
      this.hub.post({ t: 'watch_remote', viewer, node, frame: null });
    }
    for (const g of [...this.guests.values()]) {
      if (g.node === node) this.guestOp({ op: 'close', from: node, viewer: g.viewer });
    }
  }

  close(): void {
    for (const s of this.subs) s.unsubscribe();
  }
}
