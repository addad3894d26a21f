import { describe, expect, it } from 'vitest';
import { BAND_JOIN_GAP_ROWS, DAMAGE_MAX_RECTS, PATCH_GRID_PX, addDamage, gridBands, joinBands } from '../../shared/bands.js';
import { changedColumns, writeDamage } from './row-diff.js';
import { fbNative, nativeMissing } from './native.js';
import { FRAME_MAX_BANDS } from '../../shared/ring.js';

/** A BGRX source of w×h, every pixel `bgr`. */
function bgrx(w: number, h: number, b: number, g: number, r: number): Uint8Array {
  const px = new Uint8Array(w * h * 4);
  for (let i = 0; i < w * h; i++) { px[i * 4] = b; px[i * 4 + 1] = g; px[i * 4 + 2] = r; }
  return px;
}

describe('changed bands', () => {
  it('converts BGRX to opaque RGBA and reports only the rows and columns that really changed', () => {
    const w = 150, h = 64;
    const dst = new Uint8Array(w * h * 4);
    const to = { rgba: dst, seen: new Uint8Array(w * h * 4), w };
    writeDamage({ px: bgrx(w, h, 10, 20, 30), stride: w, x: 0 }, { x: 0, y: 0, w, h }, to, [], true);
    expect([...dst.subarray(0, 4)]).toEqual([30, 20, 10, 255]);
    // A coarse damage rectangle over the whole frame, but only a 5x3 box differs.
    const src = bgrx(w, h, 10, 20, 30);
    for (let y = 40; y < 43; y++) for (let x = 7; x < 12; x++) src[(y * w + x) * 4] = 99;
    const bands = writeDamage({ px: src, stride: w, x: 0 }, { x: 0, y: 0, w, h }, to);
    expect(bands).toEqual([{ x: 7, y: 40, w: 5, h: 3 }]);
    expect([...dst.subarray((40 * w + 7) * 4, (40 * w + 7) * 4 + 4)]).toEqual([30, 20, 99, 255]);
    expect(writeDamage({ px: src, stride: w, x: 0 }, { x: 0, y: 0, w, h }, to)).toEqual([]);
    // Changes in two segments of one row, and at the row's very end.
    src[(50 * w + 3) * 4] = 1; src[(50 * w + w - 1) * 4] = 1;
    expect(writeDamage({ px: src, stride: w, x: 0 }, { x: 0, y: 0, w, h }, to)).toEqual([{ x: 3, y: 50, w: w - 3, h: 1 }]);
    // A black first frame is still written whole (the screen's black is the untouched memory's zero).
    const black = { rgba: new Uint8Array(w * h * 4), seen: new Uint8Array(w * h * 4), w };
    expect(writeDamage({ px: bgrx(w, h, 0, 0, 0), stride: w, x: 0 }, { x: 0, y: 0, w, h }, black, [], true)).toEqual([{ x: 0, y: 0, w, h }]);
    expect(black.rgba[3]).toBe(255);
  });

  it('joins nearby bands and never carries more than the ring holds', () => {
    expect(joinBands([{ x: 0, y: 0, w: 10, h: 10 }], [{ x: 5, y: 10 + BAND_JOIN_GAP_ROWS, w: 10, h: 2 }])).toEqual([{ x: 0, y: 0, w: 15, h: 12 + BAND_JOIN_GAP_ROWS }]);
    const many = Array.from({ length: 20 }, (_, i) => ({ x: 0, y: i * 100, w: 10, h: 1 }));
    expect(joinBands(many, []).length).toBe(FRAME_MAX_BANDS);
  });

  it('cuts patches on the macroblock grid, so a change re-encodes every block it touches and no more', () => {
    const g = PATCH_GRID_PX;
    expect(gridBands([{ x: 7, y: 40, w: 5, h: 3 }], 1280, 720)).toEqual([{ x: 0, y: 32, w: g, h: g }]);
    expect(gridBands([{ x: g - 1, y: 0, w: 2, h: 1 }], 1280, 720)).toEqual([{ x: 0, y: 0, w: 2 * g, h: g }]);
    // Clipped to a frame whose size is not a multiple of the grid.
    expect(gridBands([{ x: 1270, y: 715, w: 10, h: 5 }], 1280, 719)).toEqual([{ x: 1264, y: 704, w: 16, h: 15 }]);
  });

  it('keeps a moving box and a clock far below it as two damage rectangles, and joins those that touch', () => {
    const list = addDamage([], { x: 100, y: 100, w: 105, h: 100 });
    addDamage(list, { x: 0, y: 704, w: 256, h: 16 });
    expect(list).toEqual([{ x: 100, y: 100, w: 105, h: 100 }, { x: 0, y: 704, w: 256, h: 16 }]);
    addDamage(list, { x: 200, y: 150, w: 20, h: 20 });
    expect(list).toEqual([{ x: 0, y: 704, w: 256, h: 16 }, { x: 100, y: 100, w: 120, h: 100 }]);
    for (let i = 0; i < 20; i++) addDamage(list, { x: 1000, y: i * 100, w: 1, h: 1 });
    expect(list.length).toBeLessThanOrEqual(DAMAGE_MAX_RECTS);
  });

  it('the native pixel loop writes the same pixels and reports the same changed columns as the JavaScript one', () => {
    expect(nativeMissing).toBe('');
    let seed = 7;
    const rand = (n: number): number => { seed = (seed * 1103515245 + 12345) >>> 0; return seed % n; };
    const w = 300, h = 200, stride = 333;
    for (let round = 0; round < 40; round++) {
      const seen = new Uint8Array(w * h * 4);
      for (let i = 0; i < seen.length; i++) seen[i] = rand(4);
      // A frame's RGBA always shows what `seen` holds (the capture keeps them in step).
      const rgba = new Uint8Array(w * h * 4);
      for (let i = 0; i < w * h; i++) { rgba[i * 4] = seen[i * 4 + 2]!; rgba[i * 4 + 1] = seen[i * 4 + 1]!; rgba[i * 4 + 2] = seen[i * 4]!; rgba[i * 4 + 3] = 255; }
      const src = new Uint8Array(stride * h * 4);
      for (let i = 0; i < src.length; i++) src[i] = rand(4) === 0 ? rand(4) : seen[i % seen.length]!;
      const d = { x: rand(w / 2), y: rand(h / 2), w: 1 + rand(w / 2), h: 1 + rand(h / 2) };
      const sx = rand(stride - d.w);
      const all = rand(5) === 0;
      const [seenJs, rgbaJs] = [seen.slice(), rgba.slice()];
      const minJs = new Int32Array(d.h), maxJs = new Int32Array(d.h);
      changedColumns({ px: src, stride, x: sx }, d, { rgba: rgbaJs, seen: seenJs, w }, all, minJs, maxJs);
      const minC = new Int32Array(d.h), maxC = new Int32Array(d.h);
      fbNative!.diffRows(src, stride, sx, d.x, d.y, d.w, d.h, rgba, seen, w, all, minC, maxC);
      expect([...minC]).toEqual([...minJs]);
      expect([...maxC]).toEqual([...maxJs]);
      expect(Buffer.compare(Buffer.from(rgba), Buffer.from(rgbaJs))).toBe(0);
      expect(Buffer.compare(Buffer.from(seen), Buffer.from(seenJs))).toBe(0);
    }
    // A rectangle past its buffers is refused, never read.
    expect(() => fbNative!.diffRows(new Uint8Array(16), 1, 0, 0, 0, 4, 4, new Uint8Array(64), new Uint8Array(64), 4, false, new Int32Array(4), new Int32Array(4))).toThrow(/outside its buffers/);
  });
});
