/**
 * Newest-frame fan-out. For each frame of a tab, every viewer of the tab gets the frame's
 * messages (one send each, no per-viewer copy or encode) — unless its socket still holds unsent
 * bytes of an earlier frame: then it is skipped and owed a keyframe, so a slow viewer holds at
 * most one frame in the relay and never delays anyone. A patch goes only to a viewer that holds
 * the frame it patches; anyone else waits for a keyframe, asked of the frame source once the
 * viewer can take it.
 *
 * The frame source is an interface: today a host's WebpRing, later possibly a subscription on
 * another machine; the viewer side is anything with send and a buffered amount.
 */
import { FRAME_FLAG_KEYFRAME } from '../../shared/protocol.js';
import type { WebpFrame } from '../../shared/ring.js';

/** Unsent bytes above which a viewer is skipped, bytes: 0 means a viewer takes a frame only once the previous one has left the relay. */
export const VIEWER_SEND_BOUND_BYTES = 0;
/** Least time between two keyframe asks for one tab, ms: a keyframe is a whole-frame encode. */
export const KEYFRAME_ASK_INTERVAL_MS = 100;

/** Where frames come from. */
export interface FrameSource {
  /** Frames of any tab this source carries; `release` after sending (the views die with it). */
  onFrame(cb: (frame: WebpFrame, release: () => void) => void): void;
  /** A viewer of `tab` needs a whole picture. */
  requestKeyframe(tab: number): void;
  /** Nobody watches `tab` any more. */
  unviewed(tab: number): void;
  close(): void;
}

/** Where frames go: one viewer's socket. */
export interface ViewerSink {
  /** Sends one message; false when some of it stays unsent (the socket has a backlog). */
  send(bytes: Uint8Array): boolean;
  /** Bytes accepted by send but not yet written to the kernel. */
  buffered(): number;
  /** Runs `fn` with sends batched into one write. */
  cork(fn: () => void): void;
}

/** A viewer holds no frame of its tab (just attached, or skipped since). */
const HOLDS_NOTHING = -1;

/**
 * `backlog`: the last send left bytes unsent. Only then is the socket's buffered amount asked
 * again: a healthy viewer costs one send a frame and no other call into the socket.
 */
interface ViewerState { id: number; sink: ViewerSink; tab: number; holds: number; held: number; backlog: boolean }
/** `sent`, `skipped`, `bytes`: the tab's share of the counters, for the operators' per-tab figures. */
interface TabState { viewers: Set<ViewerState>; source?: FrameSource; askedAt: number; keyframeSeq: number; sent: number; skipped: number; bytes: number }

export interface FanoutCounters {
  frames: number;
  viewerFrames: number;
  skipped: number;
  patchesWithheld: number;
  keyframesAsked: number;
  bytesOut: number;
  /** Most frames one viewer ever had sitting unsent in the relay. */
  maxFramesHeld: number;
}

export class Fanout {
  private readonly viewers = new Map<number, ViewerState>();
  private readonly tabs = new Map<number, TabState>();
  private readonly sources = new Set<FrameSource>();
  readonly counters: FanoutCounters = { frames: 0, viewerFrames: 0, skipped: 0, patchesWithheld: 0, keyframesAsked: 0, bytesOut: 0, maxFramesHeld: 0 };

  /** Frames of the tabs in `tabs` come from `source` (a host's pipeline). */
  addSource(source: FrameSource, tabs?: number[]): void {
    this.sources.add(source);
    source.onFrame((f, release) => {
      try { this.frame(f); } finally { release(); }
    });
    for (const t of tabs ?? []) this.tab(t).source = source;
  }

  removeSource(source: FrameSource): void {
    this.sources.delete(source);
    for (const t of this.tabs.values()) if (t.source === source) t.source = undefined;
    source.close();
  }

  /** Tab `tab`'s frames come from `source` (asks for keyframes go there). */
  route(tab: number, source: FrameSource): void {
    const t = this.tab(tab);
    t.source = source;
    if (t.viewers.size) this.ask(t, tab, true);
  }

  /** Viewer `id` now watches `tab` (or nothing, with null); it starts owed a keyframe. */
  watch(id: number, sink: ViewerSink, tab: number | null): void {
    this.unwatch(id);
    if (tab === null) return;
    // Whatever the socket still holds (control messages) is looked at before its first frame.
    const v: ViewerState = { id, sink, tab, holds: HOLDS_NOTHING, held: 0, backlog: true };
    this.viewers.set(id, v);
    const t = this.tab(tab);
    t.viewers.add(v);
    this.ask(t, tab, true);
  }

  unwatch(id: number): void {
    const v = this.viewers.get(id);
    if (!v) return;
    this.viewers.delete(id);
    const t = this.tabs.get(v.tab);
    if (!t) return;
    t.viewers.delete(v);
    if (t.viewers.size === 0) t.source?.unviewed(v.tab);
  }

  /**
   * The viewer dropped its picture (its decoder fell behind): it holds nothing now, so it gets no
   * patch until a keyframe, which is asked for at once (within the ask interval; `now`: at once
   * regardless, for an ask another node already bounded).
   */
  resync(id: number, now = false): void {
    const v = this.viewers.get(id);
    if (!v) return;
    v.holds = HOLDS_NOTHING;
    const t = this.tabs.get(v.tab);
    if (t) this.ask(t, v.tab, now);
  }

  /** The viewer's socket wrote out its backlog: if it is owed a keyframe, ask for one. */
  drained(id: number): void {
    const v = this.viewers.get(id);
    if (!v || v.sink.buffered() > VIEWER_SEND_BOUND_BYTES) return;
    v.backlog = false;
    if (v.holds !== HOLDS_NOTHING) return;
    v.held = 0;
    const t = this.tabs.get(v.tab);
    if (t) this.ask(t, v.tab, false);
  }

  /** Each watched tab (by frame id): its viewers now, and the frames sent, skipped for slow viewers and bytes out since it was first watched. */
  watchedTabs(): Array<{ frame: number; viewers: number; sent: number; skipped: number; bytes: number }> {
    return [...this.tabs].filter(([, t]) => t.viewers.size > 0).map(([frame, t]) => ({ frame, viewers: t.viewers.size, sent: t.sent, skipped: t.skipped, bytes: t.bytes }));
  }

  frame(f: WebpFrame): void {
    const t = this.tabs.get(f.frame);
    this.counters.frames++;
    if (!t || t.viewers.size === 0) return;
    const keyframe = (f.flags & FRAME_FLAG_KEYFRAME) !== 0;
    if (keyframe) t.keyframeSeq = f.seq;
    let bytes = 0;
    for (const p of f.parts) bytes += p.byteLength;
    let owedAndReady = false;
    for (const v of t.viewers) {
      if (v.backlog) {
        if (v.sink.buffered() > VIEWER_SEND_BOUND_BYTES) {
          v.holds = HOLDS_NOTHING;
          this.counters.skipped++;
          t.skipped++;
          continue;
        }
        v.backlog = false;
      }
      v.held = 0;
      if (keyframe ? v.holds >= f.seq : v.holds !== f.baseSeq) {
        if (!keyframe) { this.counters.patchesWithheld++; v.holds = HOLDS_NOTHING; owedAndReady = true; }
        continue;
      }
      // One message goes out in one write anyway; cork only to batch the patches of one frame.
      if (f.parts.length === 1) v.backlog = !v.sink.send(f.parts[0]!);
      else {
        v.sink.cork(() => { for (const p of f.parts) v.sink.send(p); });
        v.backlog = v.sink.buffered() > 0;
      }
      v.holds = f.seq;
      this.counters.viewerFrames++;
      this.counters.bytesOut += bytes;
      t.sent++;
      t.bytes += bytes;
      if (v.backlog) {
        v.held = 1;
        if (this.counters.maxFramesHeld < 1) this.counters.maxFramesHeld = 1;
      }
    }
    if (owedAndReady) this.ask(t, f.frame, false);
  }

  private ask(t: TabState, tab: number, now: boolean): void {
    if (!t.source) return;
    const at = performance.now();
    if (!now && at - t.askedAt < KEYFRAME_ASK_INTERVAL_MS) return;
    t.askedAt = at;
    this.counters.keyframesAsked++;
    t.source.requestKeyframe(tab);
  }

  private tab(tab: number): TabState {
    let t = this.tabs.get(tab);
    if (!t) { t = { viewers: new Set(), askedAt: -Infinity, keyframeSeq: 0, sent: 0, skipped: 0, bytes: 0 }; this.tabs.set(tab, t); }
    return t;
  }

  close(): void {
    for (const s of this.sources) s.close();
    this.sources.clear();
  }
}
