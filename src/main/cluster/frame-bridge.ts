/**
 * The frame path between nodes, run in the relay thread beside the fan-out it feeds and reads.
 *
 * Owning side: a node that watches one of this node's tabs is one more sink in the fan-out (an
 * `export`), so it gets today's rules: newest frame only, skipped while its link is behind and
 * owed a keyframe, patches only on top of what it holds. Its frames go out on a subject of its
 * own, so a frame crosses NATS once per watching node.
 *
 * Watching side: the subscription is one more frame source (a `RemoteFrameSource`): it holds at
 * most the newest frame not yet fanned out, so a node that falls behind drops frames rather than
 * queue them; its viewers are then owed a keyframe, and the ask goes back to the owner.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { FRAME_FLAG_KEYFRAME, readFrameHeader } from '../../shared/protocol.js';
import type { WebpFrame } from '../../shared/ring.js';
import type { Fanout, FrameSource, ViewerSink } from '../../workers/relay/fanout.js';
import { packFrame, packOp, senderOf, subjects, unpackFrame, unpackOp, type KeyframeAsk } from './protocol.js';

/**
 * Bytes the NATS client may hold unsent before a watching node counts as behind: about two
 * keyframes. The client writes its buffer out every tick; past this the link to NATS is slower
 * than the tab, so that node is skipped (and owed a keyframe) instead of queued.
 */
export const HOP_PUBLISH_BOUND_BYTES = 4 * 1024 * 1024;
/**
 * Fan-out keys of remote tabs start here: far above any local frame id (those count up from 1),
 * so one fan-out carries both. Sink ids of watching nodes share the range, apart from viewer ids.
 */
const REMOTE_KEY_BASE = 2 ** 40;
/**
 * How long a watching node waits for the keyframe it asked before asking again, ms: an ask that
 * crossed the owner's start of publishing (or a keyframe sent before this node subscribed) is
 * lost, and a still page sends nothing else.
 */
export const KEYFRAME_REASK_MS = 500;

/** The NATS client's unsent bytes: its outbound buffer, read where the client keeps it (0 when it cannot be read). */
function unsentBytes(nc: NatsConnection): number {
  const p = (nc as unknown as { protocol?: { outbound?: { size(): number } } }).protocol;
  return p?.outbound?.size() ?? 0;
}

interface Export { sinkId: number; source: number; frame: number; node: string }

export class FrameBridge {
  private nextKey = REMOTE_KEY_BASE;
  /** This node's tabs other nodes watch, by `node:frame`. */
  private readonly exports = new Map<string, Export>();
  /** Other nodes' tabs this node's viewers watch, by `node:frame`. */
  private readonly imports = new Map<string, RemoteFrameSource>();
  private readonly asks: Subscription;
  /** Frames published to other nodes, and their bytes (the bench's NATS bytes per frame). */
  readonly counters = { framesOut: 0, bytesOut: 0, framesIn: 0, framesDropped: 0 };

  constructor(private readonly nc: NatsConnection, private readonly node: string, private readonly fanout: Fanout, private readonly sourceOf: (source: number) => FrameSource | undefined) {
    this.asks = nc.subscribe(subjects.keyframe(node, '*'), {
      callback: (_e, m) => {
        const ask = unpackOp<KeyframeAsk>(m.data);
        const x = ask && this.exports.get(`${senderOf(m.subject)}:${ask.frame}`);
        if (x) this.fanout.resync(x.sinkId, true);
      },
    });
  }

  /** Node `node` does (`on`) or no longer does watch frame id `frame` of this node's source `source`. */
  exportFrames(node: string, source: number, frame: number, on: boolean): void {
    const key = `${node}:${frame}`;
    const had = this.exports.get(key);
    if (!on) {
      if (had) { this.exports.delete(key); this.fanout.unwatch(had.sinkId); }
      return;
    }
    if (had) return;
    const x: Export = { sinkId: this.nextKey++, source, frame, node };
    this.exports.set(key, x);
    const s = this.sourceOf(source);
    if (s) this.fanout.route(frame, s);
    this.fanout.watch(x.sinkId, this.nodeSink(x), frame);
  }

  /** A sink that publishes each frame whole on the watching node's subject. */
  private nodeSink(x: Export): ViewerSink {
    const subject = subjects.frames(this.node, x.frame, x.node);
    let corked: Uint8Array[] | undefined;
    const publish = (parts: Uint8Array[]): boolean => {
      const h = readFrameHeader(new DataView(parts[0]!.buffer, parts[0]!.byteOffset, parts[0]!.byteLength));
      const data = packFrame({ seq: h.seq, flags: h.flags, baseSeq: h.baseSeq, parts });
      try {
        this.nc.publish(subject, data);
      } catch {
        return false; // Past NATS's max_payload, or the connection closed: the node is owed a keyframe.
      }
      this.counters.framesOut++;
      this.counters.bytesOut += data.byteLength;
      return unsentBytes(this.nc) <= HOP_PUBLISH_BOUND_BYTES;
    };
    return {
      send: (b) => { if (corked) { corked.push(b); return true; } return publish([b]); },
      buffered: () => Math.max(0, unsentBytes(this.nc) - HOP_PUBLISH_BOUND_BYTES),
      cork: (fn) => {
        corked = [];
        try { fn(); } finally {
          const parts = corked;
          corked = undefined;
          if (parts.length) publish(parts);
        }
      },
    };
  }

  /** Viewer `viewer` of this node now watches frame id `frame` of node `node` (null: nothing). */
  watchRemote(viewer: number, sink: ViewerSink | undefined, node: string, frame: number | null): void {
    if (frame === null || !sink) { this.fanout.unwatch(viewer); return; }
    const key = `${node}:${frame}`;
    let src = this.imports.get(key);
    if (!src) {
      const k = this.nextKey++;
      src = new RemoteFrameSource(this.nc, this.node, node, frame, k, this.counters, () => {
        if (this.imports.get(key) === src) this.imports.delete(key);
        this.fanout.removeSource(src!);
      });
      this.imports.set(key, src);
      this.fanout.addSource(src);
      this.fanout.route(k, src);
    }
    this.fanout.watch(viewer, sink, src.key);
  }

  close(): void {
    this.asks.unsubscribe();
    for (const s of this.imports.values()) s.close();
    this.imports.clear();
    for (const x of this.exports.values()) this.fanout.unwatch(x.sinkId);
    this.exports.clear();
    // The connection is a loop handle: the relay thread ends only once it is closed.
    void this.nc.close().catch(() => undefined);
  }
}

/** One remote tab's frames, as a frame source of this node's fan-out. */
class RemoteFrameSource implements FrameSource {
  private readonly sub: Subscription;
  private newest?: WebpFrame;
  private scheduled = false;
  private cb?: (frame: WebpFrame, release: () => void) => void;
  private closed = false;
  private reask?: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection, private readonly me: string, private readonly owner: string,
    private readonly frame: number, readonly key: number,
    private readonly counters: FrameBridge['counters'], private readonly unwatched: () => void,
  ) {
    this.sub = nc.subscribe(subjects.frames(owner, frame, me), {
      callback: (_e, m) => {
        const f = unpackFrame(m.data);
        if (!f) return;
        this.counters.framesIn++;
        if (f.flags & FRAME_FLAG_KEYFRAME && this.reask) { clearTimeout(this.reask); this.reask = undefined; }
        // Newest frame only: one not yet fanned out is replaced; viewers then get no patch on top of a frame they lack.
        if (this.newest) this.counters.framesDropped++;
        this.newest = { seq: f.seq, frame: this.key, flags: f.flags, baseSeq: f.baseSeq, parts: f.parts };
        if (!this.scheduled) { this.scheduled = true; setImmediate(() => this.deliver()); }
      },
    });
  }

  private deliver(): void {
    this.scheduled = false;
    const f = this.newest;
    this.newest = undefined;
    if (f && this.cb && !this.closed) this.cb(f, () => undefined);
  }

  onFrame(cb: (frame: WebpFrame, release: () => void) => void): void { this.cb = cb; }

  requestKeyframe(): void {
    if (this.closed) return;
    if (this.reask) clearTimeout(this.reask);
    this.reask = setTimeout(() => { this.reask = undefined; this.requestKeyframe(); }, KEYFRAME_REASK_MS);
    this.reask.unref();
    try { this.nc.publish(subjects.keyframe(this.owner, this.me), packOp({ node: this.me, frame: this.frame })); } catch { /* closed: the owner's death reaches the viewers as a sentence */ }
  }

  unviewed(): void { this.unwatched(); }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.reask) clearTimeout(this.reask);
    this.sub.unsubscribe();
  }
}
