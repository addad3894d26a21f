/**
 * The page's side of the picture: the visible canvas, handed to the frame worker when the
 * browser can draw off the main thread (else drawn here by the same compositor). Frames pass
 * through untouched; only their header is read here, for the picture's size that input maps onto.
 */
import { readFrameHeader } from '../../../src/shared/protocol.js';
import { Compositor, type DrawStats } from './compositor.js';
import type { FromFrameWorker, ToFrameWorker } from './protocol.js';

export class FrameRenderer {
  readonly canvas: HTMLCanvasElement;
  /** The size of the newest frame: what the box's picture stands for. */
  picW = 0;
  picH = 0;
  /** Whether a picture is on screen since the last reset. */
  pictured = false;
  stats: DrawStats = { drawn: 0, dropped: 0, seq: -1, frameW: 0, frameH: 0, keyframes: 0, decodeMs: 0, resyncs: 0 };
  /** The decoder fell behind and dropped its backlog: ask the server for a keyframe. */
  onBehind: () => void = () => {};
  /** Called when the worker reports; the first picture ends the "opening" look. */
  onStats: (s: DrawStats) => void = () => {};
  private worker: Worker | null = null;
  private local: Compositor | null = null;

  constructor() {
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'surface-canvas';
    if (typeof this.canvas.transferControlToOffscreen === 'function' && typeof Worker !== 'undefined') {
      try {
        this.worker = new Worker(new URL('./frames/worker.js', import.meta.url), { type: 'module', name: 'frames' });
        const off = this.canvas.transferControlToOffscreen();
        this.post({ t: 'canvas', canvas: off }, [off]);
        this.worker.onmessage = (e: MessageEvent<FromFrameWorker>) => {
          if (e.data.t === 'behind') this.onBehind();
          else this.report(e.data.stats);
        };
        return;
      } catch {
        this.worker = null;
      }
    }
    this.local = new Compositor(this.canvas, (cb) => requestAnimationFrame(cb));
    this.local.onBehind = () => this.onBehind();
    window.setInterval(() => { if (this.local && this.local.stats.drawn !== this.stats.drawn) this.report({ ...this.local.stats }); }, 250);
  }

  setBox(w: number, h: number, background: string): void {
    const dpr = window.devicePixelRatio || 1;
    if (this.worker) this.post({ t: 'box', w, h, dpr, background });
    else this.local?.setBox(w, h, dpr, background);
  }

  push(frame: ArrayBuffer): void {
    const h = readFrameHeader(new DataView(frame));
    this.picW = h.frameW;
    this.picH = h.frameH;
    if (this.worker) this.post({ t: 'frame', data: frame }, [frame]);
    else this.local?.push(frame);
  }

  reset(): void {
    this.pictured = false;
    this.picW = 0;
    this.picH = 0;
    if (this.worker) this.post({ t: 'reset' });
    else this.local?.reset();
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.local = null;
  }

  private report(s: DrawStats): void {
    this.stats = s;
    if (s.seq >= 0) this.pictured = true;
    this.canvas.dataset.framesDrawn = String(s.drawn);
    this.canvas.dataset.seq = String(s.seq);
    this.canvas.dataset.frame = `${s.frameW}x${s.frameH}`;
    this.canvas.dataset.decodeMs = s.decodeMs.toFixed(1);
    this.canvas.dataset.resyncs = String(s.resyncs);
    this.onStats(s);
  }

  private post(m: ToFrameWorker, transfer: Transferable[] = []): void {
    this.worker?.postMessage(m, transfer);
  }
}
