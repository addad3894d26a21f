/**
 * glibc's allocator in the server process (native/malloc). It serves a block past its mmap
 * threshold with a mapping of its own, returned to the system at free, but raises the threshold to
 * each such block's size once it is freed, up to 32 MiB: one viewer message of 15 MiB, copied
 * through a few buffers on its way in, left every later block under that size to the arenas,
 * whose freed pages stay resident (50,000 fuzzed viewer inputs: +286 to +408 MB, held once idle).
 * The threshold is pinned at start, and /metrics says what the arenas hold.
 *
 * free() hands back only an arena's top: pages freed below a block still in use stay resident.
 * A terminal fuzz of 400,000 inputs held its arenas at ~160 MB, up to ~108 MB of it free, while
 * no thread's heap grew (the RSS climbed in steps with the arenas). So the arenas are trimmed
 * (malloc_trim) once they hold enough free memory to be worth a walk.
 */
import { loadAddon } from '../workers/addon.js';
import { log } from './logging.js';

interface MallocNative {
  pinMmapThreshold(bytes: number): boolean;
  arenas(): { heldBytes: number; freeBytes: number; mappedBytes: number };
  /** malloc_trim(0): true when pages went back to the system. */
  trim(): boolean;
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

/** How often the arenas' free memory is looked at, ms: a reading is one mallinfo2 call. */
export const ARENA_TRIM_CHECK_MS = 10_000;
/**
 * Free memory in the arenas, and growth of the RSS since the last trim, that make a trim worth it,
 * bytes. A trim walks every arena under its lock (4 ms for 120 MB of arenas here; /metrics sums
 * it); below this the pages are soon reused anyway. Pages a trim gave back still count as free in
 * the arenas, so the RSS's growth says whether there is anything new to give.
 */
export const ARENA_TRIM_FREE_BYTES = 32 * 1024 * 1024;

const trims = { count: 0, ms: 0, releasedBytes: 0 };

/** Trims the arenas whenever they hold ARENA_TRIM_FREE_BYTES free; checked every ARENA_TRIM_CHECK_MS. Returns the stop. */
export function startArenaTrims(): () => void {
  if (!native.addon) return () => undefined;
  const addon = native.addon;
  let rssAfterTrim = 0;
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss - rssAfterTrim < ARENA_TRIM_FREE_BYTES || addon.arenas().freeBytes < ARENA_TRIM_FREE_BYTES) return;
    const t0 = performance.now();
    addon.trim();
    const ms = performance.now() - t0;
    rssAfterTrim = process.memoryUsage.rss();
    const released = Math.max(0, rss - rssAfterTrim);
    trims.count++;
    trims.ms += ms;
    trims.releasedBytes += released;
    log.debug({ ms: Math.round(ms * 10) / 10, releasedBytes: released }, 'the arenas were trimmed');
  }, ARENA_TRIM_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** What the arenas hold, for /metrics: taken from the system, of that free, and blocks mapped apart. Empty without the addon. */
export function allocatorGauges(): Array<[string, number]> {
  if (!native.addon) return [];
  const a = native.addon.arenas();
  return [['malloc_arena_bytes', a.heldBytes], ['malloc_arena_free_bytes', a.freeBytes], ['malloc_mapped_bytes', a.mappedBytes],
    ['malloc_trims', trims.count], ['malloc_trim_ms', Math.round(trims.ms)], ['malloc_trim_released_bytes', trims.releasedBytes]];
}
