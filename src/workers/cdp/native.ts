/**
 * The capture's native addon (native/fbmap): the framebuffer mapped into memory, and the
 * changed-pixel loop. Null where it did not build; the capture then uses pread and JavaScript,
 * and `nativeMissing` says why.
 */
import { loadAddon } from '../addon.js';

export interface FbNative {
  /** The whole file as an ArrayBuffer over a private mapping of it. */
  map(path: string): ArrayBuffer;
  /** bands.ts writeDamage's pixel loop; see native/fbmap/fbmap.c. */
  diffRows(
    src: Uint8Array, srcStridePx: number, srcX: number, dx: number, dy: number, dw: number, dh: number,
    rgba: Uint8Array, seen: Uint8Array, w: number, all: boolean, rowMin: Int32Array, rowMax: Int32Array,
  ): number;
  /** Gives the whole pages under `view` back to the system (madvise MADV_DONTNEED); answers the bytes given back. */
  release(view: Uint8Array): number;
}

const loaded = loadAddon<FbNative>('forge-fbmap');
export const fbNative = loaded.addon;
export const nativeMissing = loaded.why;
