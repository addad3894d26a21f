/**
 * The output frames' memory, used again. Each frame's buffer is transferred to the relay, which
 * sends it to every viewer's socket (the sockets copy it) and hands it back. A fresh buffer for
 * every frame cost a page fault per 4 KiB touched and the collector's time for the one dropped:
 * the frame copy ran at ~600 MB/s and was, with the collector, a third of the pty thread's
 * time in a `cat` flood.
 */

/** Bytes of each pooled buffer: the largest usual frame (a gathered batch, its last read and the header) fits. */
export const FRAME_POOL_BUFFER_BYTES = 320 * 1024;
/** Buffers kept for reuse: frames in flight to the relay at once in a flood are a handful; more is memory kept for nothing. */
export const FRAME_POOL_MAX_BUFFERS = 16;

const free: ArrayBuffer[] = [];

/** A frame of `bytes`, not zeroed (the caller writes every byte), on its own transferable buffer. */
export function takeFrame(bytes: number): Uint8Array {
  if (bytes > FRAME_POOL_BUFFER_BYTES) return new Uint8Array(Buffer.allocUnsafeSlow(bytes).buffer);
  const buf = free.pop() ?? Buffer.allocUnsafeSlow(FRAME_POOL_BUFFER_BYTES).buffer;
  return new Uint8Array(buf, 0, bytes);
}

/** A buffer the relay is done with: kept for the next frame if it is one of the pool's. */
export function giveBack(buf: ArrayBuffer): void {
  if (buf.byteLength === FRAME_POOL_BUFFER_BYTES && free.length < FRAME_POOL_MAX_BUFFERS) free.push(buf);
}

/** Buffers waiting for reuse now (for tests). */
export function pooledFrames(): number { return free.length; }
