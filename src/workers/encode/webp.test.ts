import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { FrameRing } from '../../shared/ring.js';
import { encodeRect, encodeRectNative } from './webp.js';
import { webpNative, webpNativeMissing } from './native.js';

const W = 320, H = 180;

/** A ring of one slot holding a W×H opaque RGBA picture: four flat quadrants of distinct colours. */
function quadrants(): FrameRing {
  const ring = FrameRing.create(1, W, H);
  const px = new Uint8Array(ring.sab, ring.dataOffset(0), W * H * 4);
  const colours = [[200, 40, 40], [40, 200, 40], [40, 40, 200], [230, 230, 60]];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const c = colours[(y < H / 2 ? 0 : 2) + (x < W / 2 ? 0 : 1)]!;
      px.set([c[0]!, c[1]!, c[2]!, 255], (y * W + x) * 4);
    }
  }
  return ring;
}

/** The decoded picture's pixel at x,y as RGB. */
async function decodedAt(webp: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(webp).raw().toBuffer({ resolveWithObject: true });
  const o = (y * info.width + x) * info.channels;
  return [data[o]!, data[o + 1]!, data[o + 2]!];
}

const near = (a: number[], b: number[]): boolean => a.every((v, i) => Math.abs(v - b[i]!) <= 12);

describe('the native WebP encoder', () => {
  it('is built and loaded, so frames do not silently cost sharp\'s extra CPU', () => {
    expect(webpNativeMissing).toBe('');
    expect(webpNative).not.toBeNull();
  });

  it('encodes exactly the rectangle asked for, read in place from the ring slot, as sharp does', async () => {
    const ring = quadrants();
    // A rectangle straddling the four quadrants, off the slot's origin on both axes.
    const rect = { x: 120, y: 60, w: 96, h: 64 };
    const native = await encodeRectNative(ring, { slot: 0, w: W, h: H, rect });
    const viaSharp = await encodeRect(ring, { slot: 0, w: W, h: H, rect });
    const meta = await sharp(native).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', rect.w, rect.h]);
    // Its corners hold the quadrants' colours: top-left red, top-right green, bottom-left blue, bottom-right yellow.
    for (const [x, y, rgb] of [[4, 4, [200, 40, 40]], [rect.w - 5, 4, [40, 200, 40]], [4, rect.h - 5, [40, 40, 200]], [rect.w - 5, rect.h - 5, [230, 230, 60]]] as const) {
      const got = await decodedAt(native, x, y);
      expect(near(got, [...rgb]), `pixel ${x},${y} is ${got}, not ${rgb}`).toBe(true);
      expect(near(got, await decodedAt(viaSharp, x, y))).toBe(true);
    }
    // The same quality and effort give about the same size.
    expect(native.byteLength).toBeLessThan(viaSharp.byteLength * 1.5);
    expect(native.byteLength).toBeGreaterThan(viaSharp.byteLength / 1.5);
  });

  it('refuses a rectangle outside its pixels in words instead of reading past them', () => {
    const px = new Uint8Array(16 * 16 * 4);
    expect(() => webpNative!.encode(px, 16 * 4, 8, 8, 9, 8, 75, 0)).toThrow(/outside its pixels/);
    expect(() => webpNative!.encode(px, 16 * 4, 0, 0, 16, 17, 75, 0)).toThrow(/outside its pixels/);
    expect(() => webpNative!.encode(px, 16 * 4, 0, 0, 0, 4, 75, 0)).toThrow(/outside its pixels/);
    expect(() => webpNative!.encode(new Uint16Array(4) as unknown as Uint8Array, 8, 0, 0, 1, 1, 75, 0)).toThrow(/Uint8Array/);
    expect(() => webpNative!.encode(px, 16 * 4, 0, 0, 4, 4, 101, 0)).toThrow(/quality/);
  });
});
