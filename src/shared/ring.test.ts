import { describe, expect, it } from 'vitest';
import { F_BASE_SEQ, F_SEQ, F_STATE, F_FRAME, F_W, F_H, FrameRing, SLOT_FREE, SLOT_READY, WebpRing } from './ring.js';

describe('FrameRing', () => {
  it('never hands the writer a slot a reader has pinned, and a reader never takes a slot being rewritten', () => {
    const ring = FrameRing.create(3, 4, 4);
    const a = ring.claim(new Set());
    ring.set(a, F_SEQ, 7); ring.set(a, F_FRAME, 1); ring.set(a, F_W, 4); ring.set(a, F_H, 4); ring.set(a, F_BASE_SEQ, 0);
    ring.set(a, F_STATE, SLOT_READY);
    expect(ring.pin(a, 7)).toBe(true);
    // Superseded while pinned: freed, yet not claimable until released.
    ring.set(a, F_STATE, SLOT_FREE);
    const claimed = new Set([ring.claim(new Set()), ring.claim(new Set())]);
    expect(claimed.has(a)).toBe(false);
    expect(ring.claim(new Set())).toBe(-1);
    ring.release(a);
    expect(ring.claim(new Set())).toBe(a);
    // A reader told about seq 7 finds the slot rewritten: it backs off.
    expect(ring.pin(a, 7)).toBe(false);
  });

  it('keeps a frame\'s changed bands with its pixels', () => {
    const ring = FrameRing.create(1, 8, 8);
    const s = ring.claim(new Set());
    ring.setBands(s, [{ x: 1, y: 2, w: 3, h: 4 }, { x: 0, y: 7, w: 8, h: 1 }]);
    expect(ring.bands(s)).toEqual([{ x: 1, y: 2, w: 3, h: 4 }, { x: 0, y: 7, w: 8, h: 1 }]);
  });
});

describe('WebpRing', () => {
  it('gives the relay the newest frame\'s messages and refuses a notice whose frame was overwritten', () => {
    const ring = WebpRing.create(2, 64);
    const s1 = ring.publish({ seq: 1, frame: 5, flags: 1, baseSeq: 0 }, [new Uint8Array([1, 2, 3])]);
    const s2 = ring.publish({ seq: 2, frame: 5, flags: 2, baseSeq: 1 }, [new Uint8Array([4]), new Uint8Array([5, 6])]);
    // The ring wraps: seq 3 overwrites seq 1, which the relay never took.
    const s3 = ring.publish({ seq: 3, frame: 5, flags: 2, baseSeq: 2 }, [new Uint8Array([7])]);
    expect(s3).toBe(s1);
    expect(ring.take(s1, 5, 1)).toBeUndefined();
    const f2 = ring.take(s2, 5, 2)!;
    expect(f2.parts.map((p) => [...p])).toEqual([[4], [5, 6]]);
    expect(f2.baseSeq).toBe(1);
    // While the relay sends seq 2, the encoder skips its slot.
    const s4 = ring.publish({ seq: 4, frame: 5, flags: 1, baseSeq: 0 }, [new Uint8Array([8])]);
    expect(s4).toBe(s1);
    ring.done(s2);
  });

  it('refuses a frame larger than a slot instead of writing past it', () => {
    const ring = WebpRing.create(1, 4);
    expect(ring.publish({ seq: 1, frame: 1, flags: 1, baseSeq: 0 }, [new Uint8Array(5)])).toBe(-1);
  });
});
