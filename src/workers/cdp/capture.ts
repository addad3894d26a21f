/**
 * Damage capture for the watched tabs of one host. On damage inside a watched tab's viewport,
 * at most once per CAPTURE_MIN_INTERVAL_MS, the damaged rows are read from the framebuffer into
 * a fresh FrameRing slot that starts as a copy of the tab's previous frame; the rows that really
 * changed become the frame's bands.
 *
 * Bands are relative to the last frame the encoder took (baseSeq): when the previous frame was
 * never taken, the capture takes it back and carries its bands forward, so a patch always
 * covers everything that changed since the frame its viewers hold. baseSeq 0 marks a keyframe.
 */
import { type FrameRing, F_BASE_SEQ, F_H, F_HOLDS, F_SEQ, F_STATE, F_FRAME, F_W, SLOT_FREE, SLOT_READY, SLOT_WRITING, type Band } from '../../shared/ring.js';
import { addDamage, gridBands, joinBands } from '../../shared/bands.js';
import { writeDamage } from './row-diff.js';
import { CAPTURE_MIN_INTERVAL_MS } from './protocol.js';
import type { Framebuffer } from './framebuffer.js';
import type { CaptureFrame, Rect } from '../../shared/capture.js';
import { DamageLog, FIRST_PAINT_WAIT_MS, FirstPaint } from './first-paint.js';
import { fbNative } from './native.js';

/** Framebuffer bytes read per pread, whole screen rows: 2 MiB is 136 rows of a 3840 px screen. */
const FB_CHUNK_BYTES = 2 * 1024 * 1024;

/**
 * How long a published frame may wait for the encoder before a newer capture replaces it, ms:
 * while the encoder is busy, capturing is wasted work, but a frame nobody takes must not stall
 * the tab's picture.
 */
const CAPTURE_WAIT_FOR_ENCODER_MS = 250;

/**
 * How soon a give-back that had to skip a slot an encode had pinned is tried again, ms: the
 * encoder lets go of a frame within one encode (a few ms to tens), and a tab nobody watches any
 * more captures nothing that would try again, so without it that slot stayed held for good.
 */
const RELEASE_RETRY_MS = 100;

export interface CaptureStats { frames: number; skippedNoSlot: number; captureMs: number }

export class TabCapture {
  /** The tab's latest published slot: the reference the next frame starts from. */
  latestSlot = -1;
  seq = 0;
  /** Damage since the last capture, viewport px: a few separate rectangles. */
  pending: Band[] | undefined;
  lastAt = -Infinity;
  publishedAt = -Infinity;
  timer: NodeJS.Timeout | undefined;
  /** Set until a window just placed on the screen is painted whole: no picture of it before. */
  firstPaint: FirstPaint | undefined;
  firstPaintTimer: NodeJS.Timeout | undefined;
  readonly stats: CaptureStats = { frames: 0, skippedNoSlot: 0, captureMs: 0 };
  /** The latest frame's pixels as the screen showed them (BGRX): what damage is compared with. */
  readonly seen: Uint8Array;

  constructor(readonly targetId: string, readonly frame: number, public viewport: Rect) {
    this.seen = new Uint8Array(viewport.w * viewport.h * 4);
  }
}

export class HostCapture {
  private readonly tabs = new Map<number, TabCapture>();
  private readonly scratch: Uint8Array;
  private readonly log = new DamageLog();
  /**
   * Per FrameRing slot, the bytes of it written since it was last given back: a slot is sized for
   * the largest viewport, and a page once written stays resident until it is given back, so a
   * slot that once held a big frame would keep holding that much through every smaller one.
   */
  private readonly written: number[];
  /** Set while a give-back waits to try again a slot an encode had pinned (see RELEASE_RETRY_MS). */
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly ring: FrameRing,
    private readonly fb: Framebuffer,
    private readonly publish: (f: CaptureFrame, tab: TabCapture) => void,
    /** Told the ring's held bytes (see heldBytes) whenever they change. */
    private readonly held: (bytes: number) => void = () => undefined,
    /** Told the count of first pictures so far that were taken because their wait for a whole paint ran out. */
    private readonly late: (total: number) => void = () => undefined,
  ) {
    this.scratch = new Uint8Array(FB_CHUNK_BYTES);
    this.written = new Array<number>(ring.slots).fill(0);
  }

  /** First pictures taken because FIRST_PAINT_WAIT_MS ran out before their window was painted whole. */
  private latePictures = 0;

  /** FrameRing bytes the capture has written and not given back: what the ring holds resident, at most. */
  heldBytes(): number { return this.written.reduce((n, b) => n + b, 0); }

  /** Slot `slot`, claimed for a frame of `bytes`, holds that much from now on: its tail past it is given back. */
  private hold(slot: number, bytes: number): void {
    const was = this.written[slot]!;
    if (was === bytes) return;
    if (was > bytes && fbNative) fbNative.release(this.ring.bytes(slot, was).subarray(bytes));
    this.written[slot] = was > bytes && !fbNative ? was : bytes;
    this.held(this.heldBytes());
  }

  /**
   * Gives back every slot no tab holds as its reference and no encode has pinned: after a layout
   * changes or a tab is no longer watched, what its bigger frames wrote is held by nobody. A slot is claimed (WRITING) while it is given back, so no reader can
   * pin it meanwhile. `keep`: slots holding at most this many bytes stay (the watched layouts'
   * frame size: a slot an encode had pinned when the layout shrank is given back on a later frame).
   */
  private releaseIdle(keep = 0): void {
    // Per frame, most often nothing is bigger than the layouts need: no set is built for it.
    if (!fbNative || !this.written.some((b) => b > keep)) return;
    const references = new Set([...this.tabs.values()].map((t) => t.latestSlot));
    let changed = false;
    let pinned = false;
    for (let s = 0; s < this.ring.slots; s++) {
      if (this.written[s]! <= keep || references.has(s)) continue;
      if (this.ring.get(s, F_HOLDS) !== 0) { pinned = true; continue; }
      if (!this.ring.cas(s, F_STATE, SLOT_FREE, SLOT_WRITING)) continue;
      if (this.ring.get(s, F_HOLDS) === 0) {
        fbNative.release(this.ring.bytes(s, this.written[s]));
        this.written[s] = 0;
        changed = true;
      } else {
        pinned = true;
      }
      this.ring.set(s, F_STATE, SLOT_FREE);
    }
    if (changed) this.held(this.heldBytes());
    if (pinned && !this.retry) {
      this.retry = setTimeout(() => { this.retry = undefined; this.releaseIdle(this.largestFrameBytes()); }, RELEASE_RETRY_MS);
      this.retry.unref();
    }
  }

  get(tab: number): TabCapture | undefined { return this.tabs.get(tab); }
  byTarget(targetId: string): TabCapture | undefined { return [...this.tabs.values()].find((t) => t.targetId === targetId); }

  /**
   * Starts (or restarts at a new viewport) a tab's capture; its first frame is a whole keyframe.
   * `paintFrom`: the window was just moved onto the screen, and paint from that time on
   * (performance.now() ms) is its page; the keyframe waits until it is painted whole (or
   * FIRST_PAINT_WAIT_MS passes).
   */
  watch(targetId: string, tab: number, viewport: Rect, paintFrom?: number): TabCapture {
    const old = this.tabs.get(tab);
    if (old) this.unwatch(tab);
    const t = new TabCapture(targetId, tab, viewport);
    if (old) t.seq = old.seq; // seqs of one tab only grow, across resizes too
    this.tabs.set(tab, t);
    t.pending = [{ x: 0, y: 0, w: viewport.w, h: viewport.h }];
    if (paintFrom !== undefined) {
      const paint = new FirstPaint(viewport);
      for (const r of this.log.since(paintFrom)) paint.add(r);
      if (!paint.whole) {
        t.firstPaint = paint;
        t.firstPaintTimer = setTimeout(() => { this.late(++this.latePictures); this.painted(t); }, FIRST_PAINT_WAIT_MS);
        return t;
      }
    }
    this.schedule(t);
    return t;
  }

  /** The tab's window is painted whole (or waited for long enough): its first picture may be taken. */
  private painted(t: TabCapture): void {
    clearTimeout(t.firstPaintTimer);
    t.firstPaint = undefined;
    t.firstPaintTimer = undefined;
    if (this.tabs.get(t.frame) === t) this.schedule(t);
  }

  unwatch(tab: number): void {
    const t = this.tabs.get(tab);
    if (!t) return;
    clearTimeout(t.timer);
    clearTimeout(t.firstPaintTimer);
    this.tabs.delete(tab);
    if (t.latestSlot >= 0) this.ring.set(t.latestSlot, F_STATE, SLOT_FREE);
    t.latestSlot = -1;
    this.releaseIdle();
  }

  /** A painted rectangle on the screen: queued on every watched tab it touches. */
  damage(r: Rect): void {
    this.log.add(r);
    for (const t of this.tabs.values()) {
      if (t.firstPaint) {
        t.firstPaint.add(r);
        if (t.firstPaint.whole) this.painted(t);
        continue;
      }
      const v = t.viewport;
      const x0 = Math.max(r.x, v.x), y0 = Math.max(r.y, v.y);
      const x1 = Math.min(r.x + r.w, v.x + v.w), y1 = Math.min(r.y + r.h, v.y + v.h);
      if (x1 <= x0 || y1 <= y0) continue;
      const d = { x: x0 - v.x, y: y0 - v.y, w: x1 - x0, h: y1 - y0 };
      t.pending = addDamage(t.pending ?? [], d);
      this.schedule(t);
    }
  }

  private schedule(t: TabCapture): void {
    if (t.timer) return;
    const wait = Math.max(0, t.lastAt + CAPTURE_MIN_INTERVAL_MS - performance.now());
    // setImmediate-like when due: the rest of this socket read's damage events join the same frame.
    t.timer = setTimeout(() => { t.timer = undefined; this.capture(t); }, wait);
  }

  private capture(t: TabCapture): void {
    if (!t.pending || this.tabs.get(t.frame) !== t) return;
    const started = performance.now();
    const prev = t.latestSlot;
    // The encoder has not taken the last frame yet: capturing now would be work it drops. Keep
    // the damage and look again next period (a frame left waiting too long is replaced anyway).
    if (prev >= 0 && this.ring.get(prev, F_STATE) === SLOT_READY && started - t.publishedAt < CAPTURE_WAIT_FOR_ENCODER_MS) {
      t.lastAt = started;
      this.schedule(t);
      return;
    }
    const exclude = new Set<number>();
    for (const o of this.tabs.values()) if (o.latestSlot >= 0) exclude.add(o.latestSlot);
    const slot = this.ring.claim(exclude);
    if (slot < 0) {
      // Every slot is being encoded or is some tab's reference: try again next period.
      t.stats.skippedNoSlot++;
      t.lastAt = started;
      this.schedule(t);
      return;
    }
    const { w, h } = t.viewport;
    this.hold(slot, w * h * 4);
    const dst = this.ring.bytes(slot, w * h * 4);
    const damage = prev >= 0 ? t.pending : [{ x: 0, y: 0, w, h }];
    t.pending = undefined;
    t.lastAt = started;
    if (prev >= 0) dst.set(this.ring.pixels(prev));
    let bands: Band[] = [];
    for (const d of damage) bands.push(...this.readDamage(t, d, dst, prev < 0));
    bands = gridBands(bands, w, h);
    if (prev < 0) bands = [{ x: 0, y: 0, w, h }];
    if (bands.length === 0) {
      this.ring.set(slot, F_STATE, SLOT_FREE);
      return;
    }
    let baseSeq = 0;
    if (prev >= 0) {
      if (this.ring.cas(prev, F_STATE, SLOT_READY, SLOT_WRITING)) {
        // The encoder never took the previous frame: this one also carries its changes.
        bands = joinBands(this.ring.bands(prev), bands);
        baseSeq = this.ring.get(prev, F_BASE_SEQ);
      } else {
        baseSeq = this.ring.get(prev, F_SEQ);
      }
    }
    const seq = ++t.seq;
    this.ring.setBands(slot, bands);
    this.ring.set(slot, F_SEQ, seq);
    this.ring.set(slot, F_FRAME, t.frame);
    this.ring.set(slot, F_W, w);
    this.ring.set(slot, F_H, h);
    this.ring.set(slot, F_BASE_SEQ, baseSeq);
    this.ring.set(slot, F_STATE, SLOT_READY);
    if (prev >= 0) this.ring.set(prev, F_STATE, SLOT_FREE);
    t.latestSlot = slot;
    t.publishedAt = performance.now();
    t.stats.frames++;
    t.stats.captureMs += performance.now() - started;
    this.publish({ t: 'frame', frame: t.frame, slot, seq }, t);
    this.releaseIdle(this.largestFrameBytes());
  }

  /** The bytes of the biggest frame a watched tab's layout takes now. */
  private largestFrameBytes(): number {
    let most = 0;
    for (const o of this.tabs.values()) most = Math.max(most, o.viewport.w * o.viewport.h * 4);
    return most;
  }

  /** Reads damage rectangle `d` (viewport px) from the screen into frame `rgba`; returns what changed (`all`: everything, a first frame). */
  private readDamage(t: TabCapture, d: Band, rgba: Uint8Array, all: boolean): Band[] {
    const v = t.viewport;
    const to = { rgba, seen: t.seen, w: v.w };
    let bands: Band[] = [];
    const chunk = this.fb.rowsAtOnce(this.scratch.byteLength);
    for (let row = 0; row < d.h; row += chunk) {
      const rows = Math.min(chunk, d.h - row);
      const px = this.fb.rows(v.y + d.y + row, rows, this.scratch);
      bands = writeDamage({ px, stride: this.fb.bytesPerLine >>> 2, x: v.x + d.x }, { x: d.x, y: d.y + row, w: d.w, h: rows }, to, bands, all);
    }
    return bands;
  }

  stop(): void {
    for (const tab of [...this.tabs.keys()]) this.unwatch(tab);
    // After the unwatches: a retry they asked for is not wanted from a stopped capture.
    clearTimeout(this.retry);
    this.retry = undefined;
  }
}
