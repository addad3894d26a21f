/**
 * The capture's native addon (native/fbmap): the framebuffer mapped into memory, and the
 * changed-pixel loop. Null where it did not build; the capture then uses pread and JavaScript,
 * and `nativeMissing` says why.
 */
import { createRequire } from 'node:module';

export interface FbNative {
  /** The whole file as an ArrayBuffer over a private mapping of it. */
  map(path: string): ArrayBuffer;
  /** bands.ts writeDamage's pixel loop; see native/fbmap/fbmap.c. */
  diffRows(
    src: Uint8Array, srcStridePx: number, srcX: number, dx: number, dy: number, dw: number, dh: number,
    rgba: Uint8Array, seen: Uint8Array, w: number, all: boolean, rowMin: Int32Array, rowMax: Int32Array,
  ): number;
}

const require = createRequire(import.meta.url);

function load(): { native: FbNative | null; why: string } {
  try {
    return { native: require('forge-fbmap') as FbNative, why: '' };
  } catch (e) {
    return { native: null, why: (e as Error).message };
  }
}

const loaded = load();
export const fbNative = loaded.native;
export const nativeMissing = loaded.why;
