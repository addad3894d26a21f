/**
 * What the capture and its readers (the encoder, the frame pipeline, the viewing rules) agree on:
 * the host's screen, the largest captured viewport, a rectangle, and the frame announcement.
 */

/**
 * Xvfb screen, px: large enough to tile one window per watched tab side by side (no window
 * covers another): 3 columns by 4 rows of 1280x720 tabs (807 px tall with their window's
 * chrome) and the tiles' 8 px gaps, 12 watched at once (3840x2400 held 2 by 2, fewer than
 * `bench tabs-watched`'s 8). Its framebuffer is 3872 x 3264 x 4 bytes, resident only where
 * windows have drawn.
 */
export const SCREEN_WIDTH = 3872;
export const SCREEN_HEIGHT = 3264;

/** Largest viewport a tab is captured at, px: bounds one FrameRing slot (1920×1200×4 = 9.2 MB). */
export const CAPTURE_MAX_WIDTH = 1920;
export const CAPTURE_MAX_HEIGHT = 1200;

/** A rectangle in px: a window's place on the screen, a viewport, a damaged area. */
export interface Rect { x: number; y: number; w: number; h: number }

/** cdp worker → encoder, on the frames port: a frame published in FrameRing `slot`. */
export interface CaptureFrame { t: 'frame'; frame: number; slot: number; seq: number }
