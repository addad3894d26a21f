/**
 * The page layout a viewer's surface asks for: the surface as the viewer measured it, bounded,
 * and the layout the capture can carry for it.
 */
import { CAPTURE_MAX_HEIGHT, CAPTURE_MAX_WIDTH, type Rect } from '../../../shared/capture.js';

/** Smallest page layout a surface may ask for, CSS px: a narrow phone in portrait fits above it. */
export const LAYOUT_MIN_WIDTH = 320;
export const LAYOUT_MIN_HEIGHT = 240;
/** Largest surface side a viewer may report, CSS px: past any real screen, so a nonsense size is bounded. */
export const SURFACE_MAX_PX = 16_384;

export interface Size { w: number; h: number }

/** The surface a viewer measured (finite numbers, as the door checked), bounded: positive, no bigger than any screen. */
export function surfaceSize(w: number, h: number): Size {
  return { w: Math.min(SURFACE_MAX_PX, Math.max(1, w)), h: Math.min(SURFACE_MAX_PX, Math.max(1, h)) };
}

/**
 * The page layout for a surface: its own size when the capture can carry it, else its shape
 * scaled into the capture's limits (a wide monitor's picture is scaled up, with no bars), and
 * never under the smallest layout.
 */
export function layoutSize(box: Size): Size {
  const down = Math.min(1, CAPTURE_MAX_WIDTH / box.w, CAPTURE_MAX_HEIGHT / box.h);
  let w = box.w * down;
  let h = box.h * down;
  if (w < LAYOUT_MIN_WIDTH || h < LAYOUT_MIN_HEIGHT) {
    const up = Math.max(LAYOUT_MIN_WIDTH / w, LAYOUT_MIN_HEIGHT / h);
    w *= up;
    h *= up;
  }
  return {
    w: Math.round(Math.min(CAPTURE_MAX_WIDTH, Math.max(LAYOUT_MIN_WIDTH, w))),
    h: Math.round(Math.min(CAPTURE_MAX_HEIGHT, Math.max(LAYOUT_MIN_HEIGHT, h))),
  };
}

/** Whether two screen rectangles share any pixel. */
export function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
