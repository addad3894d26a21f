/**
 * The benches' load generator, a process of its own so its CPU is not the server's: N viewers on
 * real sockets, the first `slow` of them stop reading before their first frame. After `seconds`
 * it prints one JSON line: per viewer frames, fps, and latency.
 *
 *   node dist/bench/loadgen.js --url WS_URL --viewers N [--slow K] --seconds S --latency stamp|trailer
 *
 * Latency `stamp`: decode the page's painted timestamp from the frame (sampled, it costs a WebP
 * decode). Latency `trailer`: the replaying bench appended its send time (float64 ms) to each
 * message.
 */
import WebSocket from 'ws';
import sharp from 'sharp';
sharp.concurrency(1);
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, readFrameHeader } from '../src/shared/protocol.js';
import { STAMP_H, STAMP_W, STAMP_Y, median, percentile, readStamp, stampAge } from './stamp.js';

/** Decode at most one stamp-carrying frame in this many when its patch is large (>100k px): decoding is the client's cost, not the server's. */
const LARGE_PATCH_SAMPLE_EVERY = 3;
const LARGE_PATCH_PIXELS = 100_000;

const arg = (name: string, dflt?: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0 || i + 1 >= process.argv.length) { if (dflt === undefined) throw new Error(`--${name} is required`); return dflt; }
  return process.argv[i + 1]!;
};
const url = arg('url');
const viewers = Number(arg('viewers'));
const slow = Number(arg('slow', '0'));
const seconds = Number(arg('seconds'));
const latencyMode = arg('latency', 'trailer');

interface Stats { frames: number; bytes: number; keyframes: number; latencies: number[]; firstAt: number; lastAt: number; seen: number; stampPx: Uint8Array; stampValid: boolean; stampSeq: number; chain: Promise<void> }
const stats: Stats[] = [];
const sockets: WebSocket[] = [];

async function connect(i: number): Promise<void> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.binaryType = 'nodebuffer';
  const s: Stats = { frames: 0, bytes: 0, keyframes: 0, latencies: [], firstAt: 0, lastAt: 0, seen: 0, stampPx: new Uint8Array(STAMP_W * STAMP_H * 3), stampValid: false, stampSeq: -1, chain: Promise.resolve() };
  stats.push(s);
  sockets.push(ws);
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
  if (i < slow) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
  let lastSeq = -1;
  ws.on('message', (data: Buffer, binary: boolean) => {
    if (!binary || data[0] !== 1) return;
    const h = readFrameHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
    const now = Date.now();
    s.bytes += data.byteLength;
    if (h.seq !== lastSeq) {
      s.frames++;
      if (!s.firstAt) s.firstAt = performance.now();
      s.lastAt = performance.now();
      lastSeq = h.seq;
      if (h.flags & FRAME_FLAG_KEYFRAME) s.keyframes++;
    }
    if (latencyMode === 'trailer') {
      const sentAt = data.readDoubleLE(data.byteLength - 8);
      s.latencies.push(performance.timeOrigin + performance.now() - sentAt);
      return;
    }
    // Keep the stamp's pixels as the viewer would see them: every part over the stamp is drawn in.
    const sx0 = Math.max(h.x, 0), sy0 = Math.max(h.y, STAMP_Y);
    const sx1 = Math.min(h.x + h.w, STAMP_W), sy1 = Math.min(h.y + h.h, STAMP_Y + STAMP_H);
    if (sx1 <= sx0 || sy1 <= sy0) return;
    const covers = sx0 === 0 && sy0 === STAMP_Y && sx1 === STAMP_W && sy1 === STAMP_Y + STAMP_H;
    if (h.w * h.h > LARGE_PATCH_PIXELS && s.seen++ % LARGE_PATCH_SAMPLE_EVERY !== 0) {
      if (!covers) s.stampValid = false;
      return;
    }
    const seq = h.seq;
    // One decode at a time per viewer: the stamp region sees the parts in order.
    s.chain = s.chain.then(() => sharp(data.subarray(FRAME_HEADER_BYTES)).raw().toBuffer({ resolveWithObject: true })).then(({ data: px, info }) => {
      for (let y = sy0; y < sy1; y++) {
        for (let x = sx0; x < sx1; x++) {
          const si = ((y - h.y) * info.width + (x - h.x)) * info.channels;
          const di = ((y - STAMP_Y) * STAMP_W + x) * 3;
          s.stampPx[di] = px[si]!; s.stampPx[di + 1] = px[si + 1]!; s.stampPx[di + 2] = px[si + 2]!;
        }
      }
      if (covers) s.stampValid = true;
      if (!s.stampValid || seq === s.stampSeq) return;
      s.stampSeq = seq;
      const stamp = readStamp(s.stampPx, STAMP_W, 3, 0, STAMP_Y);
      if (stamp !== undefined) s.latencies.push(stampAge(stamp, now));
    }).catch(() => undefined);
  });
}

for (let i = 0; i < viewers; i++) await connect(i);
process.stdout.write(JSON.stringify({ t: 'connected', viewers }) + '\n');
// The bench tells us when frames start (after it has told the relay who watches what).
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
for (const s of stats) { s.frames = 0; s.bytes = 0; s.keyframes = 0; s.latencies = []; s.firstAt = 0; }
const t0 = performance.now();
await new Promise((r) => setTimeout(r, seconds * 1000));
const elapsed = (performance.now() - t0) / 1000;
const per = stats.map((s, i) => ({
  slow: i < slow,
  frames: s.frames,
  fps: s.frames / elapsed,
  kb_per_frame: s.frames ? s.bytes / s.frames / 1024 : 0,
  keyframes: s.keyframes,
  latency_ms_p50: median(s.latencies),
  latency_ms_p95: percentile(s.latencies, 95),
}));
process.stdout.write(JSON.stringify({ t: 'done', elapsed, viewers: per }) + '\n');
for (const ws of sockets) ws.terminate();
process.exit(0);
