/**
 * The encoder's native addon (native/webp): libwebp called directly, on libuv's thread pool.
 * Null where it did not build (libwebp's headers missing); the encoder then uses sharp, and
 * `webpNativeMissing` says why.
 */
import { loadAddon } from '../addon.js';

export interface WebpNative {
  /** One lossy WebP of the w×h rectangle at x,y of opaque RGBA `pixels` (`strideBytes` a row); see native/webp/webp.c. */
  encode(pixels: Uint8Array, strideBytes: number, x: number, y: number, w: number, h: number, quality: number, method: number): Promise<Buffer>;
}

const loaded = loadAddon<WebpNative>('forge-webp');
export const webpNative = loaded.addon;
export const webpNativeMissing = loaded.why;
