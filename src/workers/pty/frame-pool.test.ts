import { describe, expect, it } from 'vitest';
import { FRAME_POOL_BUFFER_BYTES, FRAME_POOL_MAX_BUFFERS, giveBack, pooledFrames, takeFrame } from './frame-pool.js';

describe('the output frames\' pool', () => {
  it('a frame is exactly the size asked for, on a buffer of its own that can be transferred', () => {
    const f = takeFrame(1234);
    expect(f.byteLength).toBe(1234);
    expect(f.byteOffset).toBe(0);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(f, [f.buffer as ArrayBuffer]);
    expect(f.byteLength).toBe(0); // detached: it went whole
    port1.close();
    port2.close();
  });

  it('a buffer the relay gave back is the one the next frame is written in', () => {
    const f = takeFrame(100);
    const buf = f.buffer as ArrayBuffer;
    giveBack(buf);
    expect(takeFrame(200).buffer).toBe(buf);
  });

  it('a frame too big for the pool gets its own buffer, which is not kept when given back', () => {
    const before = pooledFrames();
    const big = takeFrame(FRAME_POOL_BUFFER_BYTES + 1);
    expect(big.byteLength).toBe(FRAME_POOL_BUFFER_BYTES + 1);
    giveBack(big.buffer as ArrayBuffer);
    expect(pooledFrames()).toBe(before);
  });

  it('the pool keeps at most its limit of buffers', () => {
    for (let i = 0; i < FRAME_POOL_MAX_BUFFERS + 5; i++) giveBack(new ArrayBuffer(FRAME_POOL_BUFFER_BYTES));
    expect(pooledFrames()).toBe(FRAME_POOL_MAX_BUFFERS);
  });
});
