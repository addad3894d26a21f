/**
 * glibc's allocator in the server process (native/malloc). It serves a block past its mmap
 * threshold with a mapping of its own, returned to the system at free, but raises the threshold to
 * each such block's size once it is freed, up to 32 MiB: one viewer message of 15 MiB, copied
 * through a few buffers on its way in, left every later block under that size to the arenas,
 * whose freed pages stay resident (50,000 fuzzed viewer inputs: +286 to +408 MB, held once idle).
 * The threshold is pinned at start, and /metrics says what the arenas hold.
 */
import { loadAddon } from '../workers/addon.js';
import { log } from './logging.js';

interface MallocNative {
  pinMmapThreshold(bytes: number): boolean;
  arenas(): { heldBytes: number; freeBytes: number; mappedBytes: number };
}

/**
 * Blocks of this size and more get a mapping of their own, bytes: glibc's own starting value, kept
 * from rising. Smaller blocks (control messages, terminal flushes) are reused in the arenas; a
 * larger one costs a map and an unmap, which only bulk (a file-chooser answer, a paste) pays.
 */
export const MMAP_THRESHOLD_BYTES = 128 * 1024;

const native = loadAddon<MallocNative>('forge-malloc');

/** Pins the threshold for every thread's arena; said in the log when it cannot be. */
export function pinAllocator(): void {
  if (!native.addon) { log.warn({ why: native.why }, 'native/malloc did not load: glibc may keep freed memory of large messages resident'); return; }
  if (!native.addon.pinMmapThreshold(MMAP_THRESHOLD_BYTES)) log.warn({ bytes: MMAP_THRESHOLD_BYTES }, 'glibc refused the mmap threshold');
}

/** What the arenas hold, for /metrics: taken from the system, of that free, and blocks mapped apart. Empty without the addon. */
export function allocatorGauges(): Array<[string, number]> {
  if (!native.addon) return [];
  const a = native.addon.arenas();
  return [['malloc_arena_bytes', a.heldBytes], ['malloc_arena_free_bytes', a.freeBytes], ['malloc_mapped_bytes', a.mappedBytes]];
}
