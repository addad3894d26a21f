/** The frame worker's door: what the page tells it and what it reports back. */
import type { DrawStats } from './compositor.js';

/** page → worker */
export type ToFrameWorker =
  /** The visible canvas, transferred once. */
  | { t: 'canvas'; canvas: OffscreenCanvas }
  /** The box in CSS px, the device pixel ratio, and the colour of the bars. */
  | { t: 'box'; w: number; h: number; dpr: number; background: string }
  /** One binary frame message, transferred. */
  | { t: 'frame'; data: ArrayBuffer }
  | { t: 'reset' };

/** worker → page: what was drawn (at most every FRAME_REPORT_MS), and a backlog dropped. */
export type FromFrameWorker = { t: 'stats'; stats: DrawStats } | { t: 'behind' };
