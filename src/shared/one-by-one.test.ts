import { describe, expect, it } from 'vitest';
import { OneByOne } from './one-by-one.js';

describe('tasks given one by one', () => {
  it('run in the order given, each after the one before it settled, a failure reaching its own caller only', async () => {
    const q = new OneByOne();
    const seen: string[] = [];
    const slow = q.run(async () => { await new Promise((r) => setTimeout(r, 30)); seen.push('slow'); return 1; });
    const failing = q.run(async () => { seen.push('failing'); throw new Error('its own'); });
    const fast = q.run(async () => { seen.push('fast'); return 3; });
    await expect(slow).resolves.toBe(1);
    await expect(failing).rejects.toThrow('its own');
    await expect(fast).resolves.toBe(3);
    expect(seen).toEqual(['slow', 'failing', 'fast']);
  });
});
