/**
 * A piscina pool thread's task: encode one rectangle of a FrameRing slot. The ring arrives once,
 * in workerData; tasks carry only the slot index and the rectangle.
 */
import { workerData } from 'node:worker_threads';
import { FrameRing } from '../../shared/ring.js';
import { CAPTURE_MAX_HEIGHT, CAPTURE_MAX_WIDTH } from '../../shared/capture.js';
import { encodeRect, type EncodeTask } from './webp.js';

const { frameRing, frameRingSlots } = workerData as { frameRing: SharedArrayBuffer; frameRingSlots: number };
const ring = new FrameRing(frameRing, frameRingSlots, CAPTURE_MAX_WIDTH, CAPTURE_MAX_HEIGHT);

export default async function encode(task: EncodeTask): Promise<Uint8Array> {
  return new Uint8Array(await encodeRect(ring, task));
}
