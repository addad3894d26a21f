/** Fitting the page's picture into the surface's box: the picture keeps its shape, bars fill the rest. */

export interface Rect { x: number; y: number; w: number; h: number }

/** The largest rect of the picture's shape that fits the box, centred. Never stretched. */
export function fitRect(boxW: number, boxH: number, picW: number, picH: number): Rect {
  if (boxW <= 0 || boxH <= 0 || picW <= 0 || picH <= 0) return { x: 0, y: 0, w: Math.max(0, boxW), h: Math.max(0, boxH) };
  const scale = Math.min(boxW / picW, boxH / picH);
  const w = picW * scale;
  const h = picH * scale;
  return { x: (boxW - w) / 2, y: (boxH - h) / 2, w, h };
}

/**
 * A point on the box (CSS px) as the surface coordinates the server scales into the page's viewport:
 * the picture's rect stands for the whole surface, so the bars map to nothing (null).
 */
export function boxToSurface(px: number, py: number, boxW: number, boxH: number, picW: number, picH: number): { x: number; y: number } | null {
  const r = fitRect(boxW, boxH, picW, picH);
  if (r.w <= 0 || r.h <= 0) return null;
  const u = (px - r.x) / r.w;
  const v = (py - r.y) / r.h;
  if (u < 0 || v < 0 || u > 1 || v > 1) return null;
  return { x: Math.min(boxW, u * boxW), y: Math.min(boxH, v * boxH) };
}
