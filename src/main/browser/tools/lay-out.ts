/**
 * An unwatched tab's layout as its window: the window is resized so the page's viewport is the
 * size asked, and a width under the browser's narrowest window is emulated inside it. An agent's
 * browser_resize and a video take use it; a watched tab's layout is its viewers' (viewing/layout.ts).
 */
import { WINDOW_MIN_VIEWPORT_WIDTH } from '../../../workers/cdp/windows.js';
import type { ProfileBrowser } from '../profile.js';
import type { Tab } from '../tabs.js';

/** How long a window resize may take to reach the page, ms. */
export const LAYOUT_SETTLE_MS = 3_000;

export interface Size { w: number; h: number }

/**
 * In the page: resolves true once its viewport is w x h (at once if it is, else at the resize
 * event that makes it so), false after `ms`. The server keeps its own deadline as well: a page's
 * timers may be throttled.
 */
const SIZE_REACHED = ([w, h, ms]: readonly [number, number, number]): Promise<boolean> => new Promise<boolean>((resolve) => {
  const end = (ok: boolean): void => { removeEventListener('resize', check); clearTimeout(timer); resolve(ok); };
  const check = (): void => { if (innerWidth === w && innerHeight === h) end(true); };
  const timer = setTimeout(() => end(false), ms);
  addEventListener('resize', check);
  check();
});

/** The tabs forge laid out narrower than a window can be, and at what size: their width is emulated. */
const narrowed = new WeakMap<Tab, Size>();

/** A page's emulated narrow layout is dropped (a person's viewing lays the page out anew, by its window). */
export async function dropNarrowLayout(p: ProfileBrowser, tab: Tab): Promise<void> {
  if (!narrowed.delete(tab)) return;
  await p.driver?.session(tab.page)?.send('Emulation.clearDeviceMetricsOverride').catch(() => undefined);
}

/** Waits until the page's viewport is w x h, at most LAYOUT_SETTLE_MS; answers whether it got there. */
function sizeReached(tab: Tab, w: number, h: number): Promise<boolean> {
  return Promise.race([
    tab.page.evaluate(SIZE_REACHED, [w, h, LAYOUT_SETTLE_MS] as const).catch(() => false),
    new Promise<false>((r) => setTimeout(() => r(false), LAYOUT_SETTLE_MS).unref()),
  ]);
}

/**
 * Lays the tab out with a w x h viewport: its window is resized to it, and a width under the
 * browser's narrowest window (a phone's) is the window's narrowest with the page laid out at w
 * inside it by device-metrics emulation, as a person's narrow surface is. Answers the size the
 * page had (`was`) and has now (`now`).
 */
export async function layOut(p: ProfileBrowser, tab: Tab, w: number, h: number): Promise<{ was: Size; now: Size }> {
  const driver = p.driver!;
  const session = driver.session(tab.page);
  const before = narrowed.get(tab);
  // The window's place and the page's own size are asked at once; the size once no emulation is left on it.
  const [win, [iw, ih]] = await Promise.all([
    driver.cdp.send('Browser.getWindowForTarget', { targetId: tab.targetId }) as Promise<{ windowId: number; bounds: { width: number; height: number } }>,
    (async () => {
      // Its own narrow layout goes first (a narrow viewer's went with the viewer: WindowPlacer.unnarrow).
      narrowed.delete(tab);
      await session?.send('Emulation.clearDeviceMetricsOverride').catch(() => undefined);
      return (await tab.page.evaluate('[innerWidth, innerHeight]')) as [number, number];
    })(),
  ]);
  const was = before ?? { w: iw, h: ih };
  const ww = Math.max(w, WINDOW_MIN_VIEWPORT_WIDTH);
  let now = { w: iw, h: ih };
  if (iw !== ww || ih !== h) {
    // The page starts listening before the window moves (it checks the size it has first, so a
    // resize that came before its listener is seen too): the wait costs no round trip after the move.
    const sized = sizeReached(tab, ww, h);
    await driver.cdp.send('Browser.setWindowBounds', { windowId: win.windowId, bounds: { width: ww + (win.bounds.width - iw), height: h + (win.bounds.height - ih) } });
    now = (await sized) ? { w: ww, h } : await measure(tab);
  }
  if (w < ww && session && now.w === ww && now.h === h) {
    const sized = sizeReached(tab, w, h);
    await session.send('Emulation.setDeviceMetricsOverride', { width: w, height: h, deviceScaleFactor: 1, mobile: false });
    narrowed.set(tab, { w, h });
    now = (await sized) ? { w, h } : await measure(tab);
  }
  return { was, now };
}

async function measure(tab: Tab): Promise<Size> {
  const [w, h] = (await tab.page.evaluate('[innerWidth, innerHeight]')) as [number, number];
  return { w, h };
}
