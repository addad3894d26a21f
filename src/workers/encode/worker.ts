/**
 * The encode worker of one browser host: CaptureFrame in (slot indexes), wire-ready WebP frames
 * out into the host's WebpRing, EncodedFrame to the relay. Encodes run on libuv's pool (libwebp
 * directly, or sharp) from this thread, or on a piscina pool that reads the same ring; the
 * bench compares them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { reportHeap } from '../thread-heaps.js';
import { fileURLToPath } from 'node:url';
import { FrameRing, WebpRing } from '../../shared/ring.js';
import { FRAME_HEADER_BYTES, FRAME_KIND_BROWSER, writeFrameHeader } from '../../shared/protocol.js';
import { CAPTURE_MAX_HEIGHT, CAPTURE_MAX_WIDTH, type CaptureFrame } from '../../shared/capture.js';
import { EncodeQueue, type EncodeFn, type EncodeJob } from './queue.js';
import { encodeRect, encodeRectNative } from './webp.js';
import { webpNative, webpNativeMissing } from './native.js';
import { ENCODE_MAX_IN_FLIGHT, type EncodedFrame, type EncodeWorkerData, type FromEncode, type KeyframeWanted, type TabUnviewed, type ToEncode } from './protocol.js';
import { nameThread } from '../thread-name.js';

nameThread('forge-encode');

/** Stats to the main thread at most this often, ms. */
const STATS_PERIOD_MS = 1000;

const data = workerData as EncodeWorkerData;
reportHeap(data.heap);
const port = parentPort!;
const post = (m: FromEncode): void => port.postMessage(m);
const frameRing = new FrameRing(data.frameRing, data.frameRingSlots, CAPTURE_MAX_WIDTH, CAPTURE_MAX_HEIGHT);
const webpRing = new WebpRing(data.webpRing, data.webpRingSlots, data.webpSlotBytes);

let encode: EncodeFn;
let pool: { destroy(): Promise<void> } | undefined;
const fallback = data.mode === 'native' && !webpNative ? `the native WebP encoder did not load (${webpNativeMissing}); sharp encodes instead` : '';
const mode = fallback ? 'libuv' : data.mode;
if (mode === 'native') {
  encode = (task) => encodeRectNative(frameRing, task);
} else if (mode === 'piscina') {
  const { Piscina } = await import('piscina');
  const p = new Piscina({
    filename: fileURLToPath(new URL('./task.js', import.meta.url)),
    minThreads: ENCODE_MAX_IN_FLIGHT,
    maxThreads: ENCODE_MAX_IN_FLIGHT,
    workerData: { frameRing: data.frameRing, frameRingSlots: data.frameRingSlots },
  });
  pool = p;
  encode = (task) => p.run(task) as Promise<Uint8Array>;
} else {
  encode = async (task) => encodeRect(frameRing, task);
}

function publish(job: EncodeJob): void {
  const parts = job.rects.map((r, i) => {
    const body = job.webp[i]!;
    const msg = new Uint8Array(FRAME_HEADER_BYTES + body.byteLength);
    writeFrameHeader(new DataView(msg.buffer), {
      kind: FRAME_KIND_BROWSER, flags: job.flags, id: job.frame, seq: job.seq,
      x: r.x, y: r.y, w: r.w, h: r.h, frameW: job.w, frameH: job.h, baseSeq: job.baseSeq,
    });
    msg.set(body, FRAME_HEADER_BYTES);
    return msg;
  });
  const slot = webpRing.publish({ seq: job.seq, frame: job.frame, flags: job.flags, baseSeq: job.baseSeq }, parts);
  if (slot < 0) {
    post({ t: 'error', message: `frame ${job.seq} of frame id ${job.frame} did not fit a WebP ring slot; it was dropped` });
    queue.keyframe(job.frame);
    return;
  }
  data.relay.postMessage({ t: 'webp', frame: job.frame, slot, seq: job.seq } satisfies EncodedFrame);
}

const queue = new EncodeQueue(frameRing, encode, publish, ENCODE_MAX_IN_FLIGHT);
data.frames.on('message', (m: CaptureFrame) => { if (m.t === 'frame') queue.frame(m); });
data.relay.on('message', (m: KeyframeWanted | TabUnviewed) => {
  if (m.t === 'keyframe') queue.keyframe(m.frame);
  else if (m.t === 'unviewed') queue.unviewed(m.frame);
});

const stats = setInterval(() => post({ t: 'stats', ...queue.stats, tabs: [...queue.perTab].map(([frame, t]) => ({ frame, ...t })) }), STATS_PERIOD_MS);

port.on('message', async (m: ToEncode) => {
  if (m.t !== 'stop') return;
  clearInterval(stats);
  data.frames.close();
  data.relay.close();
  await pool?.destroy();
  post({ t: 'stats', ...queue.stats, tabs: [...queue.perTab].map(([frame, t]) => ({ frame, ...t })) });
  post({ t: 'stopped' });
  port.close();
});

post({ t: 'ready', mode, fallback });
