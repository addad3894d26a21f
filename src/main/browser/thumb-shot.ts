/**
 * One tab's thumbnail: a small WebP the home's card draws beside the tab's row. Made by Chromium
 * itself from the page's compositor (CDP `Page.captureScreenshot`, clipped to the viewport and
 * scaled down before it is encoded), so a tab no viewer watches — parked off the host's screen,
 * where the frame pipeline has no pixels of it — still has a picture. `./forge bench thumbs`
 * measures its cost beside a screencast at the same size.
 */

/** A thumbnail's width, px: a card's row shows it at 120 CSS px, sharp on a 2× phone screen. */
export const THUMB_WIDTH_PX = 240;
/** Between one tab's thumbnails at most, ms: three a second says "it moves" without being a second video. */
export const THUMB_PERIOD_MS = 333;
/**
 * Shots a second across the server, whatever the number of homes and tabs: one costs ~12–16 ms
 * of CPU (Chromium's readback and encode, measured by `./forge bench thumbs`), so 6 keep the
 * thumbnails under 10% of one core. Two tabs on screen get 3 a second each; eight get ~0.75.
 */
export const THUMB_SHOTS_PER_S = 6;
/** Shots in flight at once: the tabs a slow host can hold up together. */
export const THUMB_TABS_MAX = 8;
/** WebP quality of a thumbnail (0–100): at 240 px wide, fine detail is lost to the size anyway. */
export const THUMB_WEBP_QUALITY = 50;
/** Longest one shot may take, ms: a page stuck in a script or a dialog gives none, and the next tick tries again. */
export const THUMB_SHOT_DEADLINE_MS = 2_000;

/** One tab as the clock sees it: when its last shot began (performance.now() ms) and whether one is under way. */
export interface ThumbDue { lastBegan: number; busy: boolean }

/**
 * The budget: of the tabs wanted, those due (a period since their last shot, none under way),
 * least recently shot first, as many as THUMB_SHOTS_PER_S and THUMB_TABS_MAX leave room for.
 * `began`: when the shots of the last second began, kept here.
 */
export class ThumbClock {
  private began: number[] = [];

  due<T extends ThumbDue>(tabs: T[], now: number): T[] {
    this.began = this.began.filter((t) => now - t < 1000);
    const busy = tabs.filter((t) => t.busy).length;
    const room = Math.max(0, Math.min(THUMB_SHOTS_PER_S - this.began.length, THUMB_TABS_MAX - busy));
    const due = tabs.filter((t) => !t.busy && now - t.lastBegan >= THUMB_PERIOD_MS).sort((a, b) => a.lastBegan - b.lastBegan).slice(0, room);
    for (const t of due) { t.lastBegan = now; this.began.push(now); }
    return due;
  }
}

/** How often a clock looks for tabs due, ms: a quarter period keeps each tab near its rate. */
export const THUMB_TICK_MS = Math.round(THUMB_PERIOD_MS / 4);

/** A CDP call on the tab's own session. */
export type TabCdp = (method: string, params?: object) => Promise<unknown>;

interface LayoutMetrics { cssLayoutViewport: { clientWidth: number; clientHeight: number } }

/** Shoots the tab's viewport at THUMB_WIDTH_PX wide; the answer is the WebP's bytes. */
export async function shootThumb(send: TabCdp): Promise<Uint8Array> {
  const m = (await send('Page.getLayoutMetrics')) as LayoutMetrics;
  const w = Math.max(1, m.cssLayoutViewport.clientWidth);
  const h = Math.max(1, m.cssLayoutViewport.clientHeight);
  const shot = (await send('Page.captureScreenshot', {
    format: 'webp', quality: THUMB_WEBP_QUALITY, optimizeForSpeed: true, fromSurface: true,
    clip: { x: 0, y: 0, width: w, height: h, scale: Math.min(1, THUMB_WIDTH_PX / w) },
  })) as { data: string };
  return new Uint8Array(Buffer.from(shot.data, 'base64'));
}

/** `p`, or a rejection once THUMB_SHOT_DEADLINE_MS passed. */
export function withinShotDeadline<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('the page gave no thumbnail in time')), THUMB_SHOT_DEADLINE_MS); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
