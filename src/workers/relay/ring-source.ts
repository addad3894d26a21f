/**
 * A host's encoder as a frame source: EncodedFrame notices on a MessagePort, the frames
 * themselves read in place from the host's WebpRing (no copy on the way to the sockets).
 */
import type { MessagePort } from 'node:worker_threads';
import { WebpRing, type WebpFrame } from '../../shared/ring.js';
import type { EncodedFrame, KeyframeWanted, TabUnviewed } from '../encode/protocol.js';
import type { FrameSource } from './fanout.js';

export class RingFrameSource implements FrameSource {
  private readonly ring: WebpRing;

  constructor(private readonly port: MessagePort, sab: SharedArrayBuffer, slots: number, slotBytes: number) {
    this.ring = new WebpRing(sab, slots, slotBytes);
  }

  onFrame(cb: (frame: WebpFrame, release: () => void) => void): void {
    this.port.on('message', (m: EncodedFrame) => {
      if (m.t !== 'webp') return;
      const f = this.ring.take(m.slot, m.frame, m.seq);
      // Overwritten by a newer frame before we got to it: that one has its own notice.
      if (f) cb(f, () => this.ring.done(m.slot));
    });
  }

  requestKeyframe(frame: number): void { this.port.postMessage({ t: 'keyframe', frame } satisfies KeyframeWanted); }
  unviewed(frame: number): void { this.port.postMessage({ t: 'unviewed', frame } satisfies TabUnviewed); }
  close(): void { this.port.close(); }
}
