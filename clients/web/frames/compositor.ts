/**
 * Draws browser frames onto a canvas: keyframes and patches are composed at their offsets on a
 * picture of frameW x frameH, and the picture is fitted into the visible canvas with bars.
 * Runs in the frame worker (on an OffscreenCanvas), or on the main thread where workers cannot draw.
 */
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, readFrameHeader, type FrameHeader } from '../../../src/shared/protocol.js';
import { fitRect } from './fit.js';

type AnyCanvas = HTMLCanvasElement | OffscreenCanvas;
type Ctx = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

export interface DrawStats { drawn: number; dropped: number; seq: number; frameW: number; frameH: number; keyframes: number }

export class Compositor {
  private picture: OffscreenCanvas | HTMLCanvasElement;
  private pctx: Ctx;
  private readonly ctx: Ctx;
  /** The seq of the frame on screen; a patch whose base is not this one is dropped. */
  private shownSeq = -1;
  private queue: Array<{ h: FrameHeader; bytes: ArrayBuffer }> = [];
  private busy = false;
  private boxW = 0;
  private boxH = 0;
  private dpr = 1;
  private background = '#000';
  private dirty = false;
  private hasPicture = false;
  readonly stats: DrawStats = { drawn: 0, dropped: 0, seq: -1, frameW: 0, frameH: 0, keyframes: 0 };

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
    this.queue = [];
    this.hasPicture = false;
    this.stats.seq = -1;
    this.schedule();
  }

  /** Takes one binary frame message (header and WebP bytes). Frames are decoded one at a time, in order. */
  push(message: ArrayBuffer): void {
    const h = readFrameHeader(new DataView(message));
    if (h.flags & FRAME_FLAG_KEYFRAME) {
      // A keyframe makes everything queued before it moot.
      this.stats.dropped += this.queue.length;
      this.queue = [];
    }
    this.queue.push({ h, bytes: message });
    if (!this.busy) void this.drain();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.queue.length > 0) {
      const { h, bytes } = this.queue.shift()!;
      const key = (h.flags & FRAME_FLAG_KEYFRAME) !== 0;
      if (!key && h.baseSeq !== this.shownSeq) { this.stats.dropped++; continue; }
      let bitmap: ImageBitmap;
      try {
        bitmap = await createImageBitmap(new Blob([new Uint8Array(bytes, FRAME_HEADER_BYTES)], { type: 'image/webp' }));
      } catch {
        this.stats.dropped++;
        continue;
      }
      // A reset while decoding: this frame belongs to what was watched before.
      if (!key && h.baseSeq !== this.shownSeq) { bitmap.close(); this.stats.dropped++; continue; }
      if (key && (this.picture.width !== h.frameW || this.picture.height !== h.frameH)) {
        this.picture.width = h.frameW;
        this.picture.height = h.frameH;
      }
      this.pctx.drawImage(bitmap, key ? 0 : h.x, key ? 0 : h.y);
      bitmap.close();
      this.shownSeq = h.seq;
      this.hasPicture = true;
      this.stats.drawn++;
      if (key) this.stats.keyframes++;
      this.stats.seq = h.seq;
      this.stats.frameW = this.picture.width;
      this.stats.frameH = this.picture.height;
      this.schedule();
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
