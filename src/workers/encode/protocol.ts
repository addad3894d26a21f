/**
 * The encode worker's door (one per browser host). It listens to the capture's frames port,
 * encodes the newest frame of each tab as WebP (a keyframe, or patches of the changed bands),
 * writes the wire messages into the host's WebpRing, and announces them on the relay port.
 * The relay asks for keyframes on the same port.
 */
import type { MessagePort } from 'node:worker_threads';
import type { HeapSlot } from '../thread-heaps.js';

/** WebP quality: 75 is where text stays readable; 50–85 costs the same time. */
export const WEBP_QUALITY = 75;
/** WebP effort 0: effort 1/2/4 cost 20/25/58 ms against 17 ms for the same 1280x720 frame. */
export const WEBP_EFFORT = 0;
/** Encodes in flight per host: two kept a busy tab at 50 fps on two cores, one at 39, three no better. */
export const ENCODE_MAX_IN_FLIGHT = 2;
/**
 * Strips a big rectangle is cut into when nothing else is encoding, at most (fewer on fewer
 * cores): the first picture after a quiet spell (the answer to a person's click) is encoded on
 * every core at once. A 1280x720 frame took 17.3 ms whole and 9.3 ms as two strips side by side
 * on two cores; four strips were no faster there.
 */
export const IDLE_ENCODE_STRIPS_MAX = 2;
/**
 * A rectangle smaller than this is encoded whole even when the encoder is idle, px: below it an
 * encode takes a few ms and a second strip's own start-up is most of what it would save.
 */
export const IDLE_SPLIT_MIN_PIXELS = 200_000;
/** Share of the frame changed above which one keyframe is cheaper than patches. */
export const KEYFRAME_SHARE = 0.9;

/** WebpRing slots per host: frames the relay has not sent yet are overwritten past this. */
export const WEBP_RING_SLOTS = 16;
/** One encoded frame's bytes at most: a full 1920x1200 text page is ~300 KB at quality 75. */
export const WEBP_SLOT_BYTES = 2 * 1024 * 1024;

/**
 * Where and how encodes run: `native`, libwebp directly (native/webp) on libuv's thread pool;
 * `libuv`, sharp on libuv's thread pool from this worker; `piscina`, sharp in a piscina pool of
 * threads. `./forge bench frames` runs the anim page on each, side by side.
 */
export type EncodeMode = 'native' | 'libuv' | 'piscina';
/**
 * The encode mode a host's pipeline uses unless told otherwise: native measured at ~2/3 of
 * sharp's CPU per 1280x720 frame (see `./forge bench frames`); without its addon the encoder
 * falls back to `libuv` and says why.
 */
export const DEFAULT_ENCODE_MODE: EncodeMode = 'native';

export interface EncodeWorkerData {
  /** Where this thread writes its heap for /metrics. */
  heap?: HeapSlot;
  frameRing: SharedArrayBuffer;
  frameRingSlots: number;
  webpRing: SharedArrayBuffer;
  webpRingSlots: number;
  webpSlotBytes: number;
  /** From the capture: CaptureFrame messages. */
  frames: MessagePort;
  /** To the relay: EncodedFrame messages; from the relay: KeyframeWanted. */
  relay: MessagePort;
  mode: EncodeMode;
}

/** encoder → relay: a frame in WebpRing `slot`. */
export interface EncodedFrame { t: 'webp'; frame: number; slot: number; seq: number }
/** relay → encoder: a viewer of frame id `frame` needs a whole picture. */
export interface KeyframeWanted { t: 'keyframe'; frame: number }
/** relay → encoder: nobody views frame id `frame` any more; its queued frames are dropped. */
export interface TabUnviewed { t: 'unviewed'; frame: number }

/** encoder → main, about once a second: counters for /metrics and the bench. */
export interface EncodeStats {
  t: 'stats';
  frames: number;
  keyframes: number;
  patches: number;
  bytes: number;
  encodeMs: number;
  dropped: number;
  /** Per viewed tab (its frame id): frames, bytes and encode ms since it was first viewed. */
  tabs?: Array<{ frame: number; frames: number; bytes: number; encodeMs: number }>;
}

export type ToEncode = { t: 'stop' };
/** encoder → main, once: the mode that runs (`native` falls back to `libuv` without its addon) and why it fell back. */
export interface EncodeReady { t: 'ready'; mode: EncodeMode; fallback: string }

export type FromEncode = EncodeStats | EncodeReady | { t: 'stopped' } | { t: 'error'; message: string };
