/**
 * The frames of a take's WebM, read exactly as stored: each SimpleBlock of the file (walked as the
 * Matroska spec lays out its EBML elements) holds a VP8 key frame, which a RIFF/WEBP wrapper makes
 * a picture sharp decodes. No player between the file and the test, so no frame is skipped.
 */
import sharp from 'sharp';

const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;
const TIMECODE = 0xe7;
const SIMPLE_BLOCK = 0xa3;

/** A frame of the file: its time (ms from the start) and its VP8 key frame. */
export interface StoredFrame { atMs: number; vp8: Buffer }

/** Every frame the file holds, in order. */
export function framesOf(file: Buffer): StoredFrame[] {
  const out: StoredFrame[] = [];
  const vint = (at: number, keepMarker: boolean): { value: number; len: number } => {
    const first = file[at]!;
    let len = 1;
    while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
    let value = keepMarker ? first : first & ((0x80 >> (len - 1)) - 1);
    for (let i = 1; i < len; i++) value = value * 256 + file[at + i]!;
    return { value, len };
  };
  const walk = (from: number, to: number, clusterMs: number): void => {
    for (let at = from; at < to;) {
      const id = vint(at, true);
      const size = vint(at + id.len, false);
      const body = at + id.len + size.len;
      if (id.value === SEGMENT) walk(body, body + size.value, 0);
      if (id.value === CLUSTER) walk(body, body + size.value, 0);
      if (id.value === TIMECODE) clusterMs = file.readUIntBE(body, size.value);
      if (id.value === SIMPLE_BLOCK) out.push({ atMs: clusterMs + file.readInt16BE(body + 1), vp8: file.subarray(body + 4, body + size.value) });
      at = body + size.value;
    }
  };
  walk(0, file.length, 0);
  return out;
}

/** A frame's picture: its VP8 key frame in a WebP, decoded to RGB. */
export async function pixelsOf(frame: StoredFrame): Promise<{ data: Buffer; width: number; height: number }> {
  const chunk = Buffer.alloc(8);
  chunk.write('VP8 ', 0, 'ascii');
  chunk.writeUInt32LE(frame.vp8.length, 4);
  const pad = frame.vp8.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + 8 + frame.vp8.length + pad.length, 4);
  riff.write('WEBP', 8, 'ascii');
  const { data, info } = await sharp(Buffer.concat([riff, chunk, frame.vp8, pad])).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The mean colour of a box of a decoded frame, [r, g, b]. */
export function meanOf(p: { data: Buffer; width: number }, x: number, y: number, w: number, h: number): [number, number, number] {
  const sum = [0, 0, 0];
  for (let row = y; row < y + h; row++) {
    for (let col = x; col < x + w; col++) {
      const i = (row * p.width + col) * 3;
      sum[0] += p.data[i]!; sum[1] += p.data[i + 1]!; sum[2] += p.data[i + 2]!;
    }
  }
  const n = w * h;
  return [sum[0] / n, sum[1] / n, sum[2] / n];
}
