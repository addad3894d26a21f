/**
 * Changed rows: XDamage reports one coarse rectangle per paint (a 100 px box moving across a
 * page damages 513x605), so the capture compares the damaged rows with the previous frame and
 * keeps only the rows that really changed, grouped into a few rectangles (their geometry is
 * src/shared/bands.ts).
 */
import type { Band } from '../../shared/ring.js';
import { BAND_JOIN_GAP_ROWS } from '../../shared/bands.js';
import { fbNative } from './native.js';

/** Where the damaged pixels sit in a source buffer: `stride` pixels a row, the rectangle's first pixel at `x`. */
export interface Source { px: Uint8Array; stride: number; x: number }

/** Pixels of a changed row compared at once by memcmp before looking at them one by one: most of a changed row is not. */
const ROW_SEGMENT_PX = 64;

/**
 * A tab's frame being written: its RGBA pixels `rgba` (stride w*4), and `seen`, the same
 * pixels as the screen showed them (BGRX). Comparing screen rows with `seen` is a memcmp, and
 * most rows of a damage rectangle did not change (one rectangle spans a box at the top and
 * a clock at the bottom, and all the rows between).
 */
export interface Target { rgba: Uint8Array; seen: Uint8Array; w: number }

/**
 * Writes the BGRX pixels of damage rectangle `d` (viewport coordinates; row 0 of `src` is row
 * d.y) into the frame `to` (RGBA with alpha 255, and as seen), and returns the rectangles
 * whose pixels differ from what it held before; `all` writes every pixel (a first frame) and
 * returns every row. Call it again for further rows of the same damage with `bands` from the
 * last call to continue them.
 */
export function writeDamage(src: Source, d: Band, to: Target, bands: Band[] = [], all = false): Band[] {
  const rowMin = rowScratch(rowMinScratch, d.h);
  rowMinScratch = rowMin;
  const rowMax = rowScratch(rowMaxScratch, d.h);
  rowMaxScratch = rowMax;
  if (fbNative) fbNative.diffRows(src.px, src.stride, src.x, d.x, d.y, d.w, d.h, to.rgba, to.seen, to.w, all, rowMin, rowMax);
  else changedColumns(src, d, to, all, rowMin, rowMax);
  let open: Band | undefined = bands[bands.length - 1];
  let lastChangedRow = open ? open.y + open.h - 1 : -1;
  for (let row = 0; row < d.h; row++) {
    const minX = rowMin[row]!;
    if (minX < 0) continue;
    const y = d.y + row;
    const x0 = d.x + minX;
    const x1 = d.x + rowMax[row]! + 1;
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

/** Per-row first/last changed column scratch, reused across calls (a row count never exceeds a screen's). */
let rowMinScratch: Int32Array = new Int32Array(0);
let rowMaxScratch: Int32Array = new Int32Array(0);
function rowScratch(a: Int32Array, rows: number): Int32Array {
  return a.length >= rows ? a : new Int32Array(rows);
}

/**
 * writeDamage's pixel loop in JavaScript (where the native addon is missing; the addon's
 * diffRows does the same): writes changed pixels to `to`, and each row's first and last changed
 * column (relative to d.x) to rowMin/rowMax, -1 for an unchanged row.
 */
export function changedColumns(src: Source, d: Band, to: Target, all: boolean, rowMin: Int32Array, rowMax: Int32Array): void {
  const s32 = new Uint32Array(src.px.buffer, src.px.byteOffset, src.px.byteLength >>> 2);
  const d32 = new Uint32Array(to.rgba.buffer, to.rgba.byteOffset, to.rgba.byteLength >>> 2);
  const h32 = new Uint32Array(to.seen.buffer, to.seen.byteOffset, to.seen.byteLength >>> 2);
  const sBuf = Buffer.from(src.px.buffer, src.px.byteOffset, src.px.byteLength);
  const hBuf = Buffer.from(to.seen.buffer, to.seen.byteOffset, to.seen.byteLength);
  const w = to.w;
  for (let row = 0; row < d.h; row++) {
    rowMin[row] = -1;
    rowMax[row] = -1;
    let si = row * src.stride + src.x;
    let di = (d.y + row) * w + d.x;
    if (!all && sBuf.compare(hBuf, di * 4, (di + d.w) * 4, si * 4, (si + d.w) * 4) === 0) continue;
    let minX = -1;
    let maxX = -1;
    for (let x0 = 0; x0 < d.w; x0 += ROW_SEGMENT_PX, si += ROW_SEGMENT_PX, di += ROW_SEGMENT_PX) {
      const n = Math.min(ROW_SEGMENT_PX, d.w - x0);
      if (!all && sBuf.compare(hBuf, di * 4, (di + n) * 4, si * 4, (si + n) * 4) === 0) continue;
      for (let x = 0; x < n; x++) {
        const v = s32[si + x]!;
        if (all || h32[di + x] !== v) {
          h32[di + x] = v;
          // Little-endian BGRX word → RGBA word: swap B and R, set alpha to 255.
          d32[di + x] = (0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | ((v >>> 16) & 0xff)) >>> 0;
          if (minX < 0) minX = x0 + x;
          maxX = x0 + x;
        }
      }
    }
    rowMin[row] = minX;
    rowMax[row] = maxX;
  }
}
