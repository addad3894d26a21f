/**
 * Draws browser frames onto a canvas: keyframes and patches are composed at their offsets on a
 * picture of frameW x frameH, and the picture is fitted into the visible canvas with bars.
 * Runs in the frame worker (on an OffscreenCanvas), or on the main thread where workers cannot draw.
 */
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, readFrameHeader, type FrameHeader } from '../../../src/shared/protocol.js';
import { fitRect } from './fit.js';

/** Frames decoding at once: decodes run on the engine's own threads, so a few side by side keep up with a fast page. */
const DECODES_IN_FLIGHT = 3;
/** Oldest undrawn frame before the backlog is dropped, ms: past it the picture lags the page visibly, so a keyframe is cheaper than catching up. */
const BACKLOG_MAX_MS = 250;
/** Least time between two keyframe asks, ms: the server's encode of a whole frame is not free. */
const KEYFRAME_ASK_MS = 1_000;

/** A decoded frame: an ImageBitmap, or a WebCodecs VideoFrame where ImageDecoder exists (a third cheaper, with no Blob round trip). */
type Picture = ImageBitmap | VideoFrame;

async function decodeWebp(bytes: Uint8Array<ArrayBuffer>): Promise<Picture> {
  if (typeof ImageDecoder !== 'undefined') {
    const decoder = new ImageDecoder({ data: bytes, type: 'image/webp' });
    try {
      return (await decoder.decode()).image;
    } finally {
      decoder.close();
    }
  }
  return createImageBitmap(new Blob([bytes], { type: 'image/webp' }));
}

const isKeyframe = (h: FrameHeader): boolean => (h.flags & FRAME_FLAG_KEYFRAME) !== 0;

type AnyCanvas = HTMLCanvasElement | OffscreenCanvas;
type Ctx = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

export interface DrawStats {
  drawn: number; dropped: number; seq: number; frameW: number; frameH: number; keyframes: number;
  /** Time spent decoding and composing frames, ms in total: divided by drawn, the cost of one frame. */
  decodeMs: number;
  /** Times the backlog was dropped and a keyframe asked for. */
  resyncs: number;
}

export class Compositor {
  private picture: OffscreenCanvas | HTMLCanvasElement;
  private pctx: Ctx;
  private readonly ctx: Ctx;
  /** The seq of the frame on screen; a patch whose base is not this one (nor a band of this one) is dropped. */
  private shownSeq = -1;
  private queue: Array<{ h: FrameHeader; bytes: ArrayBuffer; at: number; decoded: Promise<Picture | null> | null }> = [];
  /** When this compositor last asked for a keyframe (-Infinity: not waiting for one). */
  private askedAt = -Infinity;
  /** Called when the backlog is dropped: the page asks the server for a keyframe. */
  onBehind: () => void = () => {};
  private busy = false;
  private boxW = 0;
  private boxH = 0;
  private dpr = 1;
  private background = '#000';
  private dirty = false;
  private hasPicture = false;
  readonly stats: DrawStats = { drawn: 0, dropped: 0, seq: -1, frameW: 0, frameH: 0, keyframes: 0, decodeMs: 0, resyncs: 0 };

  constructor(private readonly canvas: AnyCanvas, private readonly requestPaint: (cb: () => void) => void) {
    this.ctx = canvas.getContext('2d', { alpha: false }) as Ctx;
    this.picture = typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(1, 1) : document.createElement('canvas');
    this.pctx = this.picture.getContext('2d', { alpha: false }) as Ctx;
  }

  /** The visible box in CSS px and the device pixel ratio: the canvas's backing store follows. */
  setBox(w: number, h: number, dpr: number, background: string): void {
    this.boxW = w;
    this.boxH = h;
    this.dpr = dpr;
    this.background = background;
    this.canvas.width = Math.max(1, Math.round(w * dpr));
    this.canvas.height = Math.max(1, Math.round(h * dpr));
    this.schedule();
  }

  /** Forgets the picture: what comes next must start with a keyframe (a re-attach, another tab). */
  reset(): void {
    this.shownSeq = -1;
    this.discard(this.queue.length);
    this.hasPicture = false;
    this.stats.seq = -1;
    this.schedule();
  }

  /** Takes one binary frame message (header and WebP bytes). Frames decode side by side and are drawn in order. */
  push(message: ArrayBuffer): void {
    const h = readFrameHeader(new DataView(message));
    const now = performance.now();
    if (h.flags & FRAME_FLAG_KEYFRAME) {
      // Everything queued before a keyframe is moot (its own other parts, should it come in parts, are not).
      const keep = this.queue.findIndex((e) => e.h.seq === h.seq);
      this.discard(keep < 0 ? this.queue.length : keep);
      this.askedAt = -Infinity;
    } else if (this.queue.length > 0 && !isKeyframe(this.queue[0]!.h) && now - this.queue[0]!.at > BACKLOG_MAX_MS) {
      // Behind: the picture on screen stays, patches stop until a keyframe (a keyframe at the head is kept: it resyncs by itself).
      this.discard(this.queue.length);
      this.shownSeq = -1;
      this.askKeyframe(now);
    }
    this.queue.push({ h, bytes: message, at: now, decoded: null });
    this.startDecodes();
    if (!this.busy) void this.drain();
  }

  /** Starts decoding the first frames of the queue, up to DECODES_IN_FLIGHT at once. */
  private startDecodes(): void {
    for (let i = 0; i < Math.min(this.queue.length, DECODES_IN_FLIGHT); i++) {
      const e = this.queue[i]!;
      if (e.decoded) continue;
      const t0 = performance.now();
      e.decoded = decodeWebp(new Uint8Array(e.bytes, FRAME_HEADER_BYTES))
        .then((b) => { this.stats.decodeMs += performance.now() - t0; return b; }, () => null);
    }
  }

  private askKeyframe(now: number): void {
    if (now - this.askedAt < KEYFRAME_ASK_MS) return;
    this.askedAt = now;
    this.stats.resyncs++;
    this.onBehind();
  }

  /** Drops the first `n` queued frames (a keyframe made them moot, or a reset). */
  private discard(n: number): void {
    for (const e of this.queue.splice(0, n)) {
      this.stats.dropped++;
      void e.decoded?.then((b) => b?.close());
    }
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const { h } = head;
      const key = (h.flags & FRAME_FLAG_KEYFRAME) !== 0;
      // A frame's bands arrive as several patches with the same seq: the later ones land on the earlier.
      if (!key && h.baseSeq !== this.shownSeq && h.seq !== this.shownSeq) {
        // A patch over a frame this picture does not hold: only a keyframe can bring it back.
        this.discard(1);
        this.askKeyframe(performance.now());
        this.startDecodes();
        continue;
      }
      this.startDecodes();
      const bitmap = await head.decoded!;
      // Discarded while decoding (a keyframe arrived, or a reset): it was closed there.
      if (this.queue[0] !== head) continue;
      this.queue.shift();
      this.startDecodes();
      if (!bitmap) { this.stats.dropped++; this.schedule(); continue; }
      if (key && h.seq !== this.shownSeq && (this.picture.width !== h.frameW || this.picture.height !== h.frameH)) {
        this.picture.width = h.frameW;
        this.picture.height = h.frameH;
      }
      this.pctx.drawImage(bitmap, h.x, h.y);
      bitmap.close();
      this.shownSeq = h.seq;
      this.hasPicture = true;
      this.stats.drawn++;
      if (key) this.stats.keyframes++;
      this.stats.seq = h.seq;
      this.stats.frameW = this.picture.width;
      this.stats.frameH = this.picture.height;
      // The frame's other parts (its bands, a big picture's strips) come in the same write: the
      // screen shows the frame once they are all drawn, never its top half over the old bottom.
      if (this.queue[0]?.h.seq !== h.seq) this.schedule();
    }
    this.busy = false;
  }

  private schedule(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.requestPaint(() => { this.dirty = false; this.paint(); });
  }

  private paint(): void {
    const c = this.ctx;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.fillStyle = this.background;
    c.fillRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.hasPicture) return;
    const r = fitRect(this.boxW, this.boxH, this.picture.width, this.picture.height);
    c.imageSmoothingEnabled = true;
    c.imageSmoothingQuality = 'high';
    c.drawImage(this.picture, r.x * this.dpr, r.y * this.dpr, r.w * this.dpr, r.h * this.dpr);
  }
}
