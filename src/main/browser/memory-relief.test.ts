/**
 * The host is signalled once after a burst of unloads, not once per unload, and a long burst
 * still gets a signal every MEMORY_RELIEF_MAX_WAIT_MS. The timers are vitest's; the signal is a
 * counter standing in for the host (the bench measures what the real signal frees).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MEMORY_RELIEF_DELAY_MS, MEMORY_RELIEF_MAX_WAIT_MS, MemoryRelief } from './memory-relief.js';

afterEach(() => { vi.useRealTimers(); });

describe('the memory relief after unloads', () => {
  it('signals once, MEMORY_RELIEF_DELAY_MS after the last of a burst of unloads', async () => {
    vi.useFakeTimers();
    let signals = 0;
    const relief = new MemoryRelief(async () => { signals++; });
    for (let i = 0; i < 5; i++) { relief.soon(); vi.advanceTimersByTime(300); }
    expect(signals).toBe(0);
    vi.advanceTimersByTime(MEMORY_RELIEF_DELAY_MS);
    expect(signals).toBe(1);
    vi.advanceTimersByTime(MEMORY_RELIEF_MAX_WAIT_MS);
    expect(signals).toBe(1);
  });

  it('signals during a burst that never pauses, at least every MEMORY_RELIEF_MAX_WAIT_MS', () => {
    vi.useFakeTimers();
    let signals = 0;
    const relief = new MemoryRelief(async () => { signals++; });
    const step = MEMORY_RELIEF_DELAY_MS / 2;
    for (let t = 0; t < 3 * MEMORY_RELIEF_MAX_WAIT_MS; t += step) { relief.soon(); vi.advanceTimersByTime(step); }
    expect(signals).toBeGreaterThanOrEqual(2);
    expect(signals).toBeLessThanOrEqual(4);
  });

  it('sends nothing once the host is gone, and a failed signal is let go', async () => {
    vi.useFakeTimers();
    let signals = 0;
    const relief = new MemoryRelief(async () => { signals++; throw new Error('the host went'); });
    relief.soon();
    relief.stop();
    vi.advanceTimersByTime(MEMORY_RELIEF_MAX_WAIT_MS);
    expect(signals).toBe(0);
    relief.soon();
    vi.advanceTimersByTime(MEMORY_RELIEF_DELAY_MS);
    await Promise.resolve();
    expect(signals).toBe(1);
  });
});
