/**
 * The encode queue of one host: per tab only the newest captured frame waits (an older one is
 * dropped when a newer one arrives, and the capture folds its changes into the newer one), at
 * most ENCODE_MAX_IN_FLIGHT frames encode at once, and each tab's results leave in seq order
 * so a patch never overtakes the frame it patches.
 */
import { F_BASE_SEQ, F_H, F_W, type FrameRing, type Band } from '../../shared/ring.js';
import { FRAME_FLAG_KEYFRAME, FRAME_FLAG_PATCH } from '../../shared/protocol.js';
import { availableParallelism } from 'node:os';
import { bandShare, joinBands, stripsOf } from '../../shared/bands.js';
import type { CaptureFrame } from '../../shared/capture.js';
import type { EncodeTask } from './webp.js';
import { IDLE_ENCODE_STRIPS_MAX, IDLE_SPLIT_MIN_PIXELS, KEYFRAME_SHARE } from './protocol.js';

/** Strips a big rectangle is cut into on an idle encoder: one per core, up to IDLE_ENCODE_STRIPS_MAX. */
const IDLE_STRIPS = Math.min(IDLE_ENCODE_STRIPS_MAX, availableParallelism());

/**
 * How long a tab's picture must stand still after a patch before the area patched since its
 * last whole picture is encoded afresh, ms. Lossy patches leave a faint residue around what
 * moved; a still picture is the moment to clear it, once, for the price of that area.
 */
export const REFRESH_AFTER_STILL_MS = 300;

/** Separate areas a refresh keeps before it takes their bounding box instead: each is its own encode. */
const REFRESH_MAX_RECTS = 16;

export type EncodeFn = (task: EncodeTask) => Promise<Uint8Array>;

/** One frame's encode: a keyframe (the whole viewport, in strips on an idle encoder) or its changed bands. */
export interface EncodeJob {
  /** The frame id of the tab the frame is of. */
  frame: number;
  seq: number;
  /** 0 for a keyframe; else the seq of the frame the patches apply to. */
  baseSeq: number;
  flags: number;
  w: number;
  h: number;
  rects: Band[];
  /** The rects are strips of one rectangle, encoded side by side (the encoder was idle). */
  sideBySide: boolean;
  webp: Uint8Array[];
  done: boolean;
  failed: boolean;
}

interface TabQueue {
  /** `refresh`: the latest frame again, as a patch on itself over `touched`. */
  pending?: { slot: number; seq: number; latestOnly: boolean; refresh?: boolean };
  /** What patches changed since the tab's last whole picture or refresh. */
  touched: Band[];
  refreshTimer?: NodeJS.Timeout;
  latest?: { slot: number; seq: number };
  wantKeyframe: boolean;
  inflight: EncodeJob[];
  waitingSince: number;
}

export interface QueueStats { frames: number; keyframes: number; patches: number; bytes: number; encodeMs: number; dropped: number }
/** One watched tab's share of the counters, for the operators' per-tab figures. */
export interface TabStats { frames: number; bytes: number; encodeMs: number }

export class EncodeQueue {
  private readonly tabs = new Map<number, TabQueue>();
  private running = 0;
  readonly stats: QueueStats = { frames: 0, keyframes: 0, patches: 0, bytes: 0, encodeMs: 0, dropped: 0 };
  /** Per tab while it is viewed; forgotten when nobody views it. */
  readonly perTab = new Map<number, TabStats>();

  constructor(
    private readonly ring: FrameRing,
    private readonly encode: EncodeFn,
    private readonly publish: (job: EncodeJob) => void,
    private readonly maxInFlight: number,
  ) {}

  private tab(tab: number): TabQueue {
    let q = this.tabs.get(tab);
    if (!q) { q = { wantKeyframe: false, inflight: [], waitingSince: 0, touched: [] }; this.tabs.set(tab, q); }
    return q;
  }

  frame(f: CaptureFrame): void {
    const q = this.tab(f.frame);
    clearTimeout(q.refreshTimer);
    if (q.pending) this.stats.dropped++;
    else q.waitingSince = performance.now();
    q.pending = { slot: f.slot, seq: f.seq, latestOnly: false };
    q.latest = { slot: f.slot, seq: f.seq };
    this.pump();
  }

  /** A viewer needs a whole picture: the next frame is a keyframe, now if the tab is idle. */
  keyframe(tab: number): void {
    const q = this.tab(tab);
    q.wantKeyframe = true;
    if (!q.pending && q.latest) {
      q.pending = { ...q.latest, latestOnly: true };
      q.waitingSince = performance.now();
    }
    this.pump();
  }

  unviewed(tab: number): void {
    this.perTab.delete(tab);
    const q = this.tabs.get(tab);
    if (q) clearTimeout(q.refreshTimer);
    if (q && q.inflight.length === 0) this.tabs.delete(tab);
    else if (q) q.pending = undefined;
  }

  private pump(): void {
    while (this.running < this.maxInFlight) {
      let next: TabQueue | undefined;
      let nextTab = -1;
      for (const [tab, q] of this.tabs) {
        if (q.pending && (!next || q.waitingSince < next.waitingSince)) { next = q; nextTab = tab; }
      }
      if (!next) return;
      this.start(nextTab, next);
    }
  }

  private start(tab: number, q: TabQueue): void {
    const { slot, seq, latestOnly, refresh } = q.pending!;
    q.pending = undefined;
    // A frame already taken can still be encoded again (a keyframe, a refresh); a new one must be untaken.
    if (!this.ring.pin(slot, seq, latestOnly)) { this.stats.dropped++; return; }
    const w = this.ring.get(slot, F_W);
    const h = this.ring.get(slot, F_H);
    // A refresh is a patch of the frame on itself: only viewers holding this very frame take it.
    const baseSeq = refresh ? seq : this.ring.get(slot, F_BASE_SEQ);
    const bands = refresh ? q.touched : this.ring.bands(slot);
    const keyframe = q.wantKeyframe || (!refresh && (latestOnly || baseSeq === 0 || bandShare(bands, w, h) > KEYFRAME_SHARE));
    if (keyframe) q.wantKeyframe = false;
    q.touched = keyframe || refresh ? [] : joinBands(q.touched, bands);
    if (q.touched.length > REFRESH_MAX_RECTS) q.touched = [boundingBox(q.touched)];
    const rects = keyframe ? [{ x: 0, y: 0, w, h }] : bands;
    // Nothing else encoding (the first frame after a quiet spell, as a click's answer is): one big
    // rectangle goes out as strips encoded on every core at once. A busy tab keeps the cores busy
    // with frames side by side instead, and pays no strip's overhead.
    const big = rects.length === 1 && rects[0]!.w * rects[0]!.h >= IDLE_SPLIT_MIN_PIXELS;
    const sideBySide = big && this.running === 0 && IDLE_STRIPS > 1;
    const job: EncodeJob = {
      frame: tab, seq, w, h,
      baseSeq: keyframe ? 0 : baseSeq,
      flags: keyframe ? FRAME_FLAG_KEYFRAME : FRAME_FLAG_PATCH,
      rects: sideBySide ? stripsOf(rects[0]!, IDLE_STRIPS) : rects,
      sideBySide, webp: [], done: false, failed: false,
    };
    q.inflight.push(job);
    this.running++;
    void this.run(job, slot).finally(() => {
      this.ring.release(slot);
      this.running--;
      job.done = true;
      this.flush(tab, q);
      this.pump();
      if (q.touched.length > 0 && !q.pending) this.refreshWhenStill(tab, q);
    });
  }

  /** Arms the refresh: if no newer frame comes within REFRESH_AFTER_STILL_MS, the area patches touched is encoded afresh. */
  private refreshWhenStill(tab: number, q: TabQueue): void {
    clearTimeout(q.refreshTimer);
    q.refreshTimer = setTimeout(() => {
      q.refreshTimer = undefined;
      if (this.tabs.get(tab) !== q || q.pending || q.inflight.length > 0 || !q.latest || q.touched.length === 0) return;
      q.pending = { ...q.latest, latestOnly: true, refresh: true };
      q.waitingSince = performance.now();
      this.pump();
    }, REFRESH_AFTER_STILL_MS);
    q.refreshTimer.unref?.();
  }

  private async run(job: EncodeJob, slot: number): Promise<void> {
    const t0 = performance.now();
    try {
      const task = (rect: Band): EncodeTask => ({ slot, w: job.w, h: job.h, rect });
      if (job.sideBySide) job.webp.push(...await Promise.all(job.rects.map((r) => this.encode(task(r)))));
      // Else the bands of one frame one after another: the in-flight bound counts frames' encodes.
      else for (const rect of job.rects) job.webp.push(await this.encode(task(rect)));
    } catch {
      job.failed = true;
    }
    const ms = performance.now() - t0;
    this.stats.encodeMs += ms;
    this.tabStats(job.frame).encodeMs += ms;
  }

  private tabStats(tab: number): TabStats {
    let s = this.perTab.get(tab);
    if (!s) { s = { frames: 0, bytes: 0, encodeMs: 0 }; this.perTab.set(tab, s); }
    return s;
  }

  private flush(tab: number, q: TabQueue): void {
    while (q.inflight[0]?.done) {
      const job = q.inflight.shift()!;
      // A lost frame breaks the patch chain: the next frame is whole.
      if (job.failed) { q.wantKeyframe = true; continue; }
      this.stats.frames++;
      if (job.flags & FRAME_FLAG_KEYFRAME) this.stats.keyframes++; else this.stats.patches++;
      const per = this.tabStats(tab);
      per.frames++;
      for (const b of job.webp) { this.stats.bytes += b.byteLength; per.bytes += b.byteLength; }
      this.publish(job);
    }
    if (!q.pending && q.inflight.length === 0 && !q.latest) this.tabs.delete(tab);
  }
}

function boundingBox(rects: Band[]): Band {
  const x0 = Math.min(...rects.map((r) => r.x));
  const y0 = Math.min(...rects.map((r) => r.y));
  const x1 = Math.max(...rects.map((r) => r.x + r.w));
  const y1 = Math.max(...rects.map((r) => r.y + r.h));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}
