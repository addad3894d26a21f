/**
 * Recorded frames replayed at 60 fps as a frame source, so the fan-out benches measure the relays
 * alone (the capture and encode of a live tab would take the two cores from under them). The
 * frames are recorded from the real pipeline; each replayed message gets its send time appended
 * (float64 ms, after the WebP) so the load generator can tell latency. A keyframe asked for is
 * the recording's first keyframe (right size and cost, not the current picture).
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { WebpRing } from '../src/shared/ring.js';
import { FRAME_FLAG_KEYFRAME, FRAME_OFF_BASE_SEQ, FRAME_OFF_SEQ } from '../src/shared/protocol.js';
import type { EncodedFrame, KeyframeWanted } from '../src/workers/encode/protocol.js';
import { WEBP_RING_SLOTS, WEBP_SLOT_BYTES } from '../src/workers/encode/protocol.js';

export interface Recorded { flags: number; parts: Uint8Array[] }

/** Replay period, ms: Chromium's 60 Hz. */
export const REPLAY_PERIOD_MS = 1000 / 60;
const TRAILER_BYTES = 8;

export class Replayer {
  readonly ring = WebpRing.create(WEBP_RING_SLOTS, WEBP_SLOT_BYTES);
  private readonly channel = new MessageChannel();
  private seq = 0;
  private i = 0;
  private wantKey = true;
  private timer: NodeJS.Timeout | undefined;
  private readonly frames: Recorded[];
  private readonly keyframe: Recorded;

  constructor(recorded: Recorded[], readonly tab: number) {
    const withTrailer = (r: Recorded): Recorded => ({ flags: r.flags, parts: r.parts.map((p) => { const q = new Uint8Array(p.byteLength + TRAILER_BYTES); q.set(p); return q; }) });
    this.frames = recorded.map(withTrailer);
    this.keyframe = withTrailer(recorded.find((r) => r.flags & FRAME_FLAG_KEYFRAME)!);
    this.channel.port1.on('message', (m: KeyframeWanted) => { if (m.t === 'keyframe' && m.frame === tab) this.wantKey = true; });
  }

  /** The relay's end (transfer it). */
  get relayPort(): MessagePort { return this.channel.port2; }

  start(): void {
    const t0 = performance.now();
    let n = 0;
    const tick = (): void => {
      this.publish();
      n++;
      this.timer = setTimeout(tick, Math.max(0, t0 + n * REPLAY_PERIOD_MS - performance.now()));
    };
    tick();
  }

  stop(): void { clearTimeout(this.timer); this.channel.port1.close(); }

  private publish(): void {
    let f = this.frames[this.i]!;
    this.i = (this.i + 1) % this.frames.length;
    if (this.wantKey || this.i === 1) { f = this.keyframe; this.wantKey = false; }
    const seq = ++this.seq;
    const key = (f.flags & FRAME_FLAG_KEYFRAME) !== 0;
    const now = performance.timeOrigin + performance.now();
    for (const p of f.parts) {
      const v = new DataView(p.buffer, p.byteOffset, p.byteLength);
      v.setUint32(FRAME_OFF_SEQ, seq, true);
      v.setUint32(FRAME_OFF_BASE_SEQ, key ? 0 : seq - 1, true);
      v.setFloat64(p.byteLength - TRAILER_BYTES, now, true);
    }
    const slot = this.ring.publish({ seq, frame: this.tab, flags: f.flags, baseSeq: key ? 0 : seq - 1 }, f.parts);
    if (slot >= 0) this.channel.port1.postMessage({ t: 'webp', frame: this.tab, slot, seq } satisfies EncodedFrame);
  }
}
