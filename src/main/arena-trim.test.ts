/**
 * Free memory the arenas hold below a block still in use goes back to the system once there is
 * enough of it: glibc's free() returns only an arena's top, so without the trim those pages stay
 * resident for good. The real allocator of this process, through native/malloc.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ARENA_TRIM_CHECK_MS, ARENA_TRIM_FREE_BYTES, allocatorGauges, pinAllocator, startArenaTrims } from './allocator.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MB = 1024 * 1024;
const gauge = (name: string): number => allocatorGauges().find(([k]) => k === name)?.[1] ?? Number.NaN;

afterEach(() => { vi.useRealTimers(); });

describe('the arenas', () => {
  it('hand their free pages back once they hold enough free, and say so in the gauges', () => {
    pinAllocator();
    // Blocks under the mmap threshold come from the arenas; one in twenty stays, so the freed ones sit below live blocks.
    const kept: Buffer[] = [];
    let all: Buffer[] | null = [];
    for (let i = 0; i < 2000; i++) { const b = Buffer.alloc(60 * 1024, 1); all.push(b); if (i % 20 === 19) kept.push(b); }
    all = null;
    gc();
    gc();
    expect(gauge('malloc_arena_free_bytes')).toBeGreaterThanOrEqual(ARENA_TRIM_FREE_BYTES);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stop = startArenaTrims();
    const trimsBefore = gauge('malloc_trims');
    const rss = process.memoryUsage.rss();
    vi.advanceTimersByTime(ARENA_TRIM_CHECK_MS);
    stop();
    expect(gauge('malloc_trims')).toBe(trimsBefore + 1);
    expect((rss - process.memoryUsage.rss()) / MB).toBeGreaterThan(50);
    expect(gauge('malloc_trim_released_bytes') / MB).toBeGreaterThan(50);
    expect(kept.every((b) => b[0] === 1)).toBe(true);
  });

  it('are walked again only once the process has grown: a second look with nothing new trims nothing', () => {
    gc();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stop = startArenaTrims();
    vi.advanceTimersByTime(ARENA_TRIM_CHECK_MS);
    const after = gauge('malloc_trims');
    vi.advanceTimersByTime(ARENA_TRIM_CHECK_MS);
    vi.advanceTimersByTime(ARENA_TRIM_CHECK_MS);
    stop();
    expect(gauge('malloc_trims')).toBe(after);
  });
});
