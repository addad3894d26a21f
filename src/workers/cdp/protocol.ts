/**
 * The cdp worker's door (one worker per browser host). The main thread asks it to start or stop
 * capturing a tab; the worker places the tab's window, copies its painted pixels into the
 * host's FrameRing on damage, and announces each published frame on the frames port (which the
 * encoder listens to) and, counted, to the main thread.
 */
import type { MessagePort } from 'node:worker_threads';
import type { HeapSlot } from '../thread-heaps.js';

/** Capture cadence, ms: damage is coalesced and a viewed tab captured at most once per this. */
export const CAPTURE_MIN_INTERVAL_MS = 8;

/**
 * FrameRing slots per host. Each captured tab keeps one as its reference frame, and a frame in
 * flight takes one more while it is written and encoded: the screen holds 12 watched tabs of
 * 1280x720 (SCREEN_HEIGHT), so 16 keep all of them fed with four frames in flight. (Eight
 * starved a host watched on eight tabs: every slot was some tab's reference and no frame was
 * sent.) A slot is resident only once written, and is given back when no tab needs it.
 */
export const FRAME_RING_SLOTS = 16;

export interface CdpWorkerData {
  /** Where this thread writes its heap for /metrics. */
  heap?: HeapSlot;
  wsEndpoint: string;
  display: number;
  fbDir: string;
  /** The host's FrameRing (see shared/ring.ts), CAPTURE_MAX_WIDTH × CAPTURE_MAX_HEIGHT slots. */
  frameRing: SharedArrayBuffer;
  frameRingSlots: number;
  /** Frames port: the worker posts CaptureFrame on it; the encoder listens. */
  frames: MessagePort;
}

/** main → cdp worker */
export type ToCdp =
  /**
   * Start capturing the page target `targetId` with a viewport of exactly w×h; its frames carry
   * `frame` (the frame id viewers know it by). Asking again with another size resizes it.
   */
  | { t: 'capture'; targetId: string; frame: number; w: number; h: number; id: number }
  /** Stop capturing: the window is parked off-screen and nothing of it is read any more. */
  | { t: 'uncapture'; targetId: string; id: number }
  /** The controller's mouse at a screen point through XTest: a popup window (a select's list) takes it there. */
  | { t: 'screen_mouse'; action: 'move' | 'down' | 'up'; x: number; y: number; button: string; id: number }
  | { t: 'stop' };

/** cdp worker → main */
export type FromCdp =
  /** `framebuffer`: 'mapped', or why the screen is read with pread; `popups`: 'watched', or why popup windows cannot be clicked. */
  | { t: 'ready'; framebuffer: string; popups: string }
  /** Answer to `capture`: where the viewport sits on the host's screen. */
  | { t: 'capturing'; id: number; targetId: string; frame: number; viewport: { x: number; y: number; w: number; h: number } }
  | { t: 'uncaptured'; id: number; targetId: string }
  | { t: 'screen_moused'; id: number }
  /** The popup windows open on the display now (screen px); sent whenever that changes. */
  | { t: 'popups'; open: Array<{ x: number; y: number; w: number; h: number }> }
  | { t: 'failed'; id: number; message: string }
  /** Sent every CAPTURE_REPORT_EVERY frames of a tab (its frame id): counts for /metrics and the bench. */
  | { t: 'captured'; frame: number; seq: number; frames: number; skippedNoSlot: number; captureMs: number }
  /** The FrameRing bytes the capture holds written (see HostCapture.heldBytes), whenever that changes. */
  | { t: 'ring'; heldBytes: number }
  /** First pictures so far taken because their window's whole paint did not come in FIRST_PAINT_WAIT_MS; sent as it grows. */
  | { t: 'late_first_pictures'; total: number }
  | { t: 'error'; message: string }
  | { t: 'stopped' };

/** A capture report to the main thread every this many frames of a tab. */
export const CAPTURE_REPORT_EVERY = 60;
