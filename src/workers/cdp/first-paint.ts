/**
 * A window just moved onto the screen shows whatever the screen held there (another tab's
 * leftovers, black) until Chromium paints it, and under load it paints in pieces. FirstPaint
 * counts which of a viewport's pixels were painted since the window was placed, so its first
 * picture is taken only once the window is painted whole.
 */
import type { Rect } from '../../shared/capture.js';

/**
 * Longest a placed window's first picture waits for Chromium to paint it whole, ms: past it, the
 * picture is taken as the screen shows it (a compositor that never repaints must not leave the
 * viewer with nothing). A window moved onto the screen is always repainted whole, so only a
 * stuck compositor reaches it; a loaded machine took over 600 ms to repaint.
 */
export const FIRST_PAINT_WAIT_MS = 2000;

/**
 * Recent damage rectangles remembered, count: a window often paints while it is still being
 * placed, before its capture starts, and that paint must count.
 */
export const DAMAGE_LOG_RECTS = 1024;

export class FirstPaint {
  /** One byte per viewport pixel: 1 once painted. */
  private readonly painted: Uint8Array;
  private left: number;

  constructor(private readonly viewport: Rect) {
    this.painted = new Uint8Array(viewport.w * viewport.h);
    this.left = viewport.w * viewport.h;
  }

  get whole(): boolean { return this.left === 0; }

  /** Counts screen rectangle `r` as painted where it lies in the viewport. */
  add(r: Rect): void {
    const v = this.viewport;
    const x0 = Math.max(r.x, v.x) - v.x, x1 = Math.min(r.x + r.w, v.x + v.w) - v.x;
    const y0 = Math.max(r.y, v.y) - v.y, y1 = Math.min(r.y + r.h, v.y + v.h) - v.y;
    for (let y = y0; y < y1; y++) {
      const row = y * v.w;
      for (let x = row + x0, end = row + x1; x < end; x++) {
        if (this.painted[x] === 0) { this.painted[x] = 1; this.left--; }
      }
    }
  }
}

/** The screen's latest damage rectangles with the time each came, oldest overwritten first. */
export class DamageLog {
  private readonly rects: Array<{ at: number; r: Rect }> = [];
  private next = 0;

  add(r: Rect, at = performance.now()): void {
    if (this.rects.length < DAMAGE_LOG_RECTS) this.rects.push({ at, r });
    else this.rects[this.next] = { at, r };
    this.next = (this.next + 1) % DAMAGE_LOG_RECTS;
  }

  /** The rectangles that came at or after `since` (performance.now() ms). */
  since(since: number): Rect[] {
    return this.rects.filter((e) => e.at >= since).map((e) => e.r);
  }
}
