/**
 * Band geometry, shared by the capture (which finds a frame's changed bands) and the encoder
 * (which joins and measures them): joining, growing to the patch grid, capping, and damage
 * rectangles. Pure arithmetic on rectangles, no pixels.
 */
import { FRAME_MAX_BANDS, type Band } from './ring.js';

/** Unchanged rows between two changed runs that still join one band, px: fewer WebP patches for a few extra rows. */
export const BAND_JOIN_GAP_ROWS = 16;

/**
 * The grid patches are cut on, px: WebP codes 16x16 macroblocks, and its loss near an edge
 * spreads over the macroblock holding it. A patch cut to the changed pixels alone leaves that
 * spread in the unchanged pixels around them, and when the edge moves on nothing ever repaints
 * them: a moving shape trails faint copies of its outline. Cut on this grid, every macroblock a
 * change touches is re-encoded whole, and one nobody touched still holds what it showed.
 */
export const PATCH_GRID_PX = 16;

/** Joins two band lists (changes since an older base) into one, at most FRAME_MAX_BANDS long. */
export function joinBands(a: readonly Band[], b: readonly Band[]): Band[] {
  const all = [...a, ...b].map((r) => ({ ...r })).sort((p, q) => p.y - q.y);
  const out: Band[] = [];
  for (const r of all) {
    const last = out[out.length - 1];
    if (last && r.y <= last.y + last.h + BAND_JOIN_GAP_ROWS) {
      out[out.length - 1] = union(last, r);
    } else out.push(r);
  }
  return capBands(out);
}

/**
 * Grows each band outwards to the PATCH_GRID_PX grid of the frame (clipped to its w×h) and
 * joins those that then touch or come near.
 */
export function gridBands(bands: readonly Band[], w: number, h: number): Band[] {
  const g = PATCH_GRID_PX;
  const grown = bands.map((b) => {
    const x = Math.floor(b.x / g) * g;
    const y = Math.floor(b.y / g) * g;
    return { x, y, w: Math.min(w, Math.ceil((b.x + b.w) / g) * g) - x, h: Math.min(h, Math.ceil((b.y + b.h) / g) * g) - y };
  });
  return joinBands(grown, []);
}

/**
 * Cuts `r` into at most `n` strips of whole rows, one above the other, each as tall as the others
 * to the PATCH_GRID_PX grid (the last takes what is left): together they cover `r` exactly.
 */
export function stripsOf(r: Band, n: number): Band[] {
  const g = PATCH_GRID_PX;
  const tall = Math.max(g, Math.ceil(r.h / Math.max(1, n) / g) * g);
  const out: Band[] = [];
  for (let y = 0; y < r.h; y += tall) out.push({ x: r.x, y: r.y + y, w: r.w, h: Math.min(tall, r.h - y) });
  return out;
}

/** Merges the closest neighbours until at most FRAME_MAX_BANDS remain. */
export function capBands(bands: Band[]): Band[] {
  while (bands.length > FRAME_MAX_BANDS) {
    let best = 0;
    let bestGap = Infinity;
    for (let i = 0; i + 1 < bands.length; i++) {
      const gap = bands[i + 1]!.y - (bands[i]!.y + bands[i]!.h);
      if (gap < bestGap) { bestGap = gap; best = i; }
    }
    bands.splice(best, 2, union(bands[best]!, bands[best + 1]!));
  }
  return bands;
}

/**
 * Damage rectangles closer than this join into one, px: paints of one widget come in several
 * rectangles side by side, but a box moving at the top and the clock at the bottom of a page
 * must not become one rectangle over all the rows between them (reading and comparing those
 * rows was most of a small frame's cost).
 */
export const DAMAGE_JOIN_GAP_PX = 32;
/** Separate damage rectangles a tab keeps between two captures; past it, the nearest join. */
export const DAMAGE_MAX_RECTS = 8;

/** Adds damage rectangle `d` to `list` (in place), joining it with any it touches or comes near. */
export function addDamage(list: Band[], d: Band): Band[] {
  let r = d;
  for (let i = 0; i < list.length;) {
    if (near(list[i]!, r, DAMAGE_JOIN_GAP_PX)) {
      r = union(list[i]!, r);
      list.splice(i, 1);
      i = 0; // the grown rectangle may now reach one it passed
    } else i++;
  }
  if (list.length >= DAMAGE_MAX_RECTS) {
    let best = 0;
    let bestGrowth = Infinity;
    list.forEach((b, i) => {
      const u = union(b, r);
      const growth = u.w * u.h - b.w * b.h;
      if (growth < bestGrowth) { bestGrowth = growth; best = i; }
    });
    r = union(list[best]!, r);
    list.splice(best, 1);
  }
  list.push(r);
  return list;
}

function near(a: Band, b: Band, gap: number): boolean {
  return a.x - gap < b.x + b.w && b.x - gap < a.x + a.w && a.y - gap < b.y + b.h && b.y - gap < a.y + a.h;
}

export function union(a: Band, b: Band): Band {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/** Area of the bands as a share of a w×h frame (bands never overlap after joinBands). */
export function bandShare(bands: readonly Band[], w: number, h: number): number {
  let a = 0;
  for (const b of bands) a += b.w * b.h;
  return a / (w * h);
}
