/**
 * Where tab windows sit on the host's screen. A watched tab's window gets a free tile on the
 * screen, sized so its viewport is exactly the asked size; every other tab's window is parked
 * off-screen, where X clips it away (no damage, nothing to copy) while Chromium still renders it
 * as a visible, focused page. Checked on this build: an off-screen window keeps
 * `visibilityState` visible and requestAnimationFrame at 60 Hz.
 */
import { ForgeError } from '../../shared/errors.js';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from '../../shared/capture.js';
import type { CdpConnection } from './connection.js';
import type { Rect } from '../../shared/capture.js';

/** Where unwatched windows go: right of the screen, so no part of them is ever painted. */
export const PARK_LEFT = SCREEN_WIDTH + 64;
/** Guess for the browser chrome above the viewport (tab strip + toolbar), px; measured per window. */
const CHROME_TOP_GUESS = 87;
/** How long a window resize may take to reach the page, ms. */
const RESIZE_SETTLE_MS = 3000;
const RESIZE_POLL_MS = 20;
/** How long a page size must hold before the chrome around it is learnt from it, ms. */
const RESIZE_STABLE_MS = 100;
/**
 * Longest a placement waits for the page's next frame, ms: a page stopped in a dialog or a busy
 * script paints no frame, and its window is shown as Chromium drew it.
 */
const NEXT_FRAME_WAIT_MS = 250;
/**
 * Chromium's narrowest window on X, px (measured: a 200–500 px request all gave 500). A narrower
 * surface (a phone in portrait) gets a window this wide and the page laid out at the surface's own
 * width by device-metrics emulation, captured from the viewport's left edge.
 */
export const WINDOW_MIN_VIEWPORT_WIDTH = 500;
/** How much taller a window is set for a moment when its page did not follow a resize, px: any change makes Chromium resize the page again. */
const WINDOW_NUDGE_PX = 1;
/** Gap between tiles, px: a window's shadow or border never bleeds into its neighbour's region. */
const TILE_GAP = 8;

/** First-fit rectangle placement on the screen (candidates at the corners of placed tiles). */
export class Tiles {
  private placed = new Map<string, Rect>();

  place(key: string, w: number, h: number): Rect {
    this.placed.delete(key);
    const candidates: Array<{ x: number; y: number }> = [{ x: 0, y: 0 }];
    for (const r of this.placed.values()) {
      candidates.push({ x: r.x + r.w + TILE_GAP, y: r.y }, { x: r.x, y: r.y + r.h + TILE_GAP }, { x: 0, y: r.y + r.h + TILE_GAP });
    }
    candidates.sort((a, b) => a.y - b.y || a.x - b.x);
    for (const c of candidates) {
      const r = { x: c.x, y: c.y, w, h };
      if (r.x + w > SCREEN_WIDTH || r.y + h > SCREEN_HEIGHT) continue;
      if ([...this.placed.values()].some((p) => overlaps(p, r))) continue;
      this.placed.set(key, r);
      return r;
    }
    throw new ForgeError('bad_request', `the host's screen has no room left for another watched tab of ${w}x${h}; stop watching a tab first`);
  }

  free(key: string): void { this.placed.delete(key); }
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w + TILE_GAP && b.x < a.x + a.w + TILE_GAP && a.y < b.y + b.h + TILE_GAP && b.y < a.y + a.h + TILE_GAP;
}

export interface PlacedWindow {
  windowId: number;
  /**
   * Set when the window moved or changed size (what the screen shows there is stale until
   * Chromium paints it): paint from this time on (performance.now() ms) is the page at its new
   * place and size.
   */
  paintFrom?: number;
  /** The page's viewport on the screen, px. */
  viewport: Rect;
}

interface Bounds { left: number; top: number; width: number; height: number }

export class WindowPlacer {
  readonly tiles = new Tiles();
  /** Measured browser chrome around the viewport, px; the same for every normal window of a host. */
  private chrome = { left: 0, top: CHROME_TOP_GUESS, right: 0, bottom: 0 };
  /** Windows whose page was last laid out narrower by emulation, by target id. */
  private readonly emulated = new Set<string>();

  /**
   * `caughtUp` resolves once all damage the screen made before the call has been read: a moved
   * window's first paint is counted from a time taken after it, so the move's own damage, read
   * late on a busy host, is never taken for the page's paint. `repaint` asks the window showing a
   * screen rectangle to paint it again, so a page painted before that time is painted after it too.
   */
  constructor(
    private readonly cdp: CdpConnection,
    private readonly caughtUp: () => Promise<void> = async () => undefined,
    private readonly repaint: (screen: Rect) => Promise<void> = async () => undefined,
  ) {}

  async windowOf(targetId: string): Promise<{ windowId: number; bounds: Bounds }> {
    return this.cdp.send<{ windowId: number; bounds: Bounds }>('Browser.getWindowForTarget', { targetId });
  }

  /** A tab's window is gone: its tile and what was known of its page go with it. */
  forget(targetId: string): void {
    this.tiles.free(targetId);
    this.emulated.delete(targetId);
  }

  /**
   * A tab nobody watches any more drops the narrow layout a viewer's surface had it emulate: its
   * page is laid out by its window again, which is what an agent's own layout starts from.
   */
  async unnarrow(targetId: string, sessionId: string | undefined): Promise<void> {
    if (!sessionId || !this.emulated.has(targetId)) return;
    await this.cdp.send('Emulation.clearDeviceMetricsOverride', {}, sessionId).catch(() => undefined);
  }

  /** Moves a tab's window off-screen; its page keeps running and keeps its size. */
  async park(targetId: string): Promise<void> {
    this.tiles.free(targetId);
    const { windowId } = await this.windowOf(targetId);
    await this.cdp.send('Browser.setWindowBounds', { windowId, bounds: { left: PARK_LEFT, top: 0 } });
  }

  /**
   * Puts a tab's window in a free tile with a viewport of exactly w×h and returns where the
   * viewport is on the screen. The chrome around the viewport is measured (window bounds minus
   * the page's innerWidth/innerHeight), not assumed.
   */
  async place(targetId: string, sessionId: string, w: number, h: number): Promise<PlacedWindow> {
    const placed = await this.placeWindow(targetId, sessionId, Math.max(w, WINDOW_MIN_VIEWPORT_WIDTH), h);
    if (w < WINDOW_MIN_VIEWPORT_WIDTH) {
      await this.cdp.send('Emulation.setDeviceMetricsOverride', { width: w, height: h, deviceScaleFactor: 1, mobile: false }, sessionId);
      this.emulated.add(targetId);
      await this.settle(sessionId, w, h);
    }
    if (placed.paintFrom !== undefined) placed.paintFrom = await this.nextFrame(sessionId, placed.viewport);
    return { ...placed, viewport: { ...placed.viewport, w } };
  }

  /**
   * Waits (at most NEXT_FRAME_WAIT_MS) until the page has produced a frame at its new size, then
   * answers the time from which the screen's paint is that frame or later. What Chromium painted
   * before it (its plain background while the page had no frame at the new size, or the page at
   * once on a quiet machine) is not counted: once the page has its frame, the window is asked to
   * paint again after that time, so its first picture neither shows the background nor waits out
   * FIRST_PAINT_WAIT_MS.
   */
  private async nextFrame(sessionId: string, viewport: Rect): Promise<number> {
    const frame = this.cdp.send('Runtime.evaluate', {
      expression: 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))',
      awaitPromise: true,
    }, sessionId).then(() => true, () => false);
    let timer: NodeJS.Timeout | undefined;
    const framed = await Promise.race([frame, new Promise<false>((r) => { timer = setTimeout(() => r(false), NEXT_FRAME_WAIT_MS); })]);
    clearTimeout(timer);
    await this.caughtUp();
    const from = performance.now();
    // Only a page that has its frame at the new size is asked to paint again: asked before, Chromium
    // paints its plain background there, and that would count as the page. Without it, the page's
    // own next paint (or FIRST_PAINT_WAIT_MS) gives the first picture.
    if (framed) await this.repaint(viewport);
    return from;
  }

  private async placeWindow(targetId: string, sessionId: string, w: number, h: number): Promise<PlacedWindow> {
    // Measure the real viewport: a narrow layout from an earlier placement is emulation, not the window.
    await this.cdp.send('Emulation.clearDeviceMetricsOverride', {}, sessionId).catch(() => undefined);
    const { windowId, bounds } = await this.windowOf(targetId);
    let was: { w: number; h: number } | undefined;
    if (!this.emulated.delete(targetId) && bounds.width > 0) {
      // Learn this host's chrome from the window as it is before moving anything (not from a
      // page whose narrow layout was emulated: it may report that layout a while yet).
      const vp = await this.viewportSize(sessionId);
      if (vp.w > 0) { this.learnChrome(bounds, vp); was = vp; }
    }
    let last = '';
    let stuck = false;
    for (let attempt = 0; attempt < 3; attempt++) {
      const outerW = w + this.chrome.left + this.chrome.right;
      const outerH = h + this.chrome.top + this.chrome.bottom;
      const tile = this.tiles.place(targetId, outerW, outerH);
      await this.cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } }).catch(() => undefined);
      // The window took the size and its page kept another: the same bounds again would change
      // nothing Chromium can see, so the window goes a pixel taller first and the page is resized anew.
      if (stuck) await this.cdp.send('Browser.setWindowBounds', { windowId, bounds: { left: tile.x, top: tile.y, width: outerW, height: outerH + WINDOW_NUDGE_PX } });
      await this.cdp.send('Browser.setWindowBounds', { windowId, bounds: { left: tile.x, top: tile.y, width: outerW, height: outerH } });
      // The move and the resize reach Chromium's window, then the page, a while apart on a busy host.
      const { vp: got, bounds: now } = await this.settleAt(targetId, sessionId, w, h, tile);
      last = `the page stayed ${got.w}x${got.h} in a ${now.width}x${now.height} window at ${now.left},${now.top}, asked ${outerW}x${outerH} at ${tile.x},${tile.y}`;
      if (got.w === w && got.h === h && now.left === tile.x && now.top === tile.y) {
        this.learnChrome(now, got);
        const moved = now.left !== bounds.left || now.top !== bounds.top || now.width !== bounds.width || now.height !== bounds.height;
        return { windowId, paintFrom: moved ? 0 : undefined, viewport: { x: now.left + this.chrome.left, y: now.top + this.chrome.top, w, h } };
      }
      // The window took its size but the page is another: the chrome guess was wrong. Learnt only
      // from a page size that holds, so a resize still under way is not taken for the chrome.
      if (now.width === outerW && now.height === outerH) {
        await new Promise((r) => setTimeout(r, RESIZE_STABLE_MS));
        const again = await this.viewportSize(sessionId);
        if (again.w === got.w && again.h === got.h) {
          // A page wider or taller than its window, or still at its size before a real resize, never
          // followed the window: chrome is never negative, and never what a resize left unchanged.
          const unmoved = was !== undefined && got.w === was.w && got.h === was.h && (bounds.width !== now.width || bounds.height !== now.height);
          stuck = unmoved || got.w > now.width || got.h > now.height;
          if (!stuck) this.learnChrome(now, got);
        }
      }
    }
    this.tiles.free(targetId);
    throw new ForgeError('bad_request', `the tab's window could not be sized to a ${w}x${h} viewport: ${last}`);
  }

  private learnChrome(b: Bounds, vp: { w: number; h: number }): void {
    const dw = b.width - vp.w;
    const dh = b.height - vp.h;
    if (dw < 0 || dh < 0) return;
    // Chromium's own frame on X without a window manager: no side or bottom border, the rest is on top.
    this.chrome = { left: Math.floor(dw / 2), right: dw - Math.floor(dw / 2), top: dh, bottom: 0 };
  }

  private async viewportSize(sessionId: string): Promise<{ w: number; h: number }> {
    const r = await this.cdp.send<{ result: { value: [number, number] } }>(
      'Runtime.evaluate', { expression: '[innerWidth, innerHeight]', returnByValue: true }, sessionId);
    const [w, h] = r.result.value;
    return { w, h };
  }

  /**
   * Waits until the window stands at `tile`'s corner and its page's viewport is w×h (or the settle
   * time passes) and returns both as they are then.
   */
  private async settleAt(targetId: string, sessionId: string, w: number, h: number, tile: { x: number; y: number }): Promise<{ vp: { w: number; h: number }; bounds: Bounds }> {
    const deadline = Date.now() + RESIZE_SETTLE_MS;
    for (;;) {
      const vp = await this.viewportSize(sessionId);
      const { bounds } = await this.windowOf(targetId);
      if ((vp.w === w && vp.h === h && bounds.left === tile.x && bounds.top === tile.y) || Date.now() >= deadline) return { vp, bounds };
      await new Promise((r) => setTimeout(r, RESIZE_POLL_MS));
    }
  }

  /** Waits until the page's viewport is w×h (or the settle time passes) and returns what it is. */
  private async settle(sessionId: string, w: number, h: number): Promise<{ w: number; h: number }> {
    const deadline = Date.now() + RESIZE_SETTLE_MS;
    let vp = await this.viewportSize(sessionId);
    while ((vp.w !== w || vp.h !== h) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, RESIZE_POLL_MS));
      vp = await this.viewportSize(sessionId);
    }
    return vp;
  }
}
