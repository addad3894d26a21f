/**
 * The test pages paint Date.now() mod 2^32 as 32 cells of 8x16 px at the viewport's bottom-left
 * (rows 704..719 of a 720 px viewport): the top half white for a 1 bit, the bottom half its
 * inverse. Reading it back from a frame tells when that frame's content was painted.
 */

/** Viewport row where the stamp starts, px. */
export const STAMP_Y = 704;
export const STAMP_W = 256;
export const STAMP_H = 16;

/**
 * Reads the stamp from raw pixels (`channels` bytes a pixel, `width` px a row) whose (0,0) is
 * viewport (ox, oy); undefined when the cells are not a clean stamp (torn or covered).
 */
export function readStamp(px: Uint8Array, width: number, channels: number, ox: number, oy: number): number | undefined {
  let v = 0;
  for (let i = 0; i < 32; i++) {
    const x = i * 8 + 4 - ox;
    const top = px[((STAMP_Y + 4 - oy) * width + x) * channels]!;
    const bottom = px[((STAMP_Y + 12 - oy) * width + x) * channels]!;
    const bit = top > 128 ? 1 : 0;
    if ((bottom > 128 ? 1 : 0) === bit) return undefined;
    v = (v * 2) + bit;
  }
  return v;
}

/** Milliseconds from a stamp to now, on the same clock (Date.now() mod 2^32). */
export function stampAge(stamp: number, now = Date.now()): number {
  return ((now % 4294967296) - stamp + 4294967296) % 4294967296;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function median(values: number[]): number { return percentile(values, 50); }
