/**
 * Changed bands: XDamage reports one coarse rectangle per paint (a 100 px box moving across a
 * page damages 513x605), so the capture compares the damaged rows with the previous frame and
 * keeps only the rows that really changed, grouped into a few rectangles.
 */
import { FRAME_MAX_BANDS, type Band } from '../../shared/ring.js';

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

/** Where the damaged pixels sit in a source buffer: `stride` pixels a row, the rectangle's first pixel at `x`. */
export interface Source { px: Uint8Array; stride: number; x: number }

/**
 * Writes the BGRX pixels of damage rectangle `d` (viewport coordinates; row 0 of `src` is row
 * d.y) into the RGBA frame `dst` (width `w`, stride w*4) with alpha 255, and returns the
 * rectangles whose pixels differ from what `dst` held before. Call it again for further rows
 * of the same damage with `bands` from the last call to continue them.
 */
export function writeDamage(src: Source, d: Band, dst: Uint8Array, w: number, bands: Band[] = []): Band[] {
  const s32 = new Uint32Array(src.px.buffer, src.px.byteOffset, src.px.byteLength >>> 2);
  const d32 = new Uint32Array(dst.buffer, dst.byteOffset, dst.byteLength >>> 2);
  let open: Band | undefined = bands[bands.length - 1];
  let lastChangedRow = open ? open.y + open.h - 1 : -1;
  for (let row = 0; row < d.h; row++) {
    let si = row * src.stride + src.x;
    let di = (d.y + row) * w + d.x;
    let minX = -1;
    let maxX = -1;
    for (let x = 0; x < d.w; x++, si++, di++) {
      const v = s32[si]!;
      // Little-endian BGRX word → RGBA word: swap B and R, set alpha to 255.
      const rgba = (0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | ((v >>> 16) & 0xff)) >>> 0;
      if (d32[di] !== rgba) {
        d32[di] = rgba;
        if (minX < 0) minX = x;
        maxX = x;
      }
    }
    if (minX < 0) continue;
    const y = d.y + row;
    const x0 = d.x + minX;
    const x1 = d.x + maxX + 1;
    if (open && y - lastChangedRow <= BAND_JOIN_GAP_ROWS) {
      const right = Math.max(open.x + open.w, x1);
      open.x = Math.min(open.x, x0);
      open.w = right - open.x;
      open.h = y + 1 - open.y;
    } else {
      open = { x: x0, y, w: x1 - x0, h: 1 };
      bands.push(open);
    }
    lastChangedRow = y;
  }
  return bands;
}

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
