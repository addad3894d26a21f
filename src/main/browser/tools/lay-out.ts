/**
 * An unwatched tab's layout as its window: the window is resized so the page's viewport is the
 * size asked (the browser's narrowest window sets a floor on the width). An agent's
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

/** Lays the tab's window out with a w x h viewport; answers the size the page had (`was`) and has now (`now`). */
export async function layOut(p: ProfileBrowser, tab: Tab, w: number, h: number): Promise<{ was: Size; now: Size }> {
  const driver = p.driver!;
  const session = driver.session(tab.page);
  // The window's place and the page's own size are asked at once; the size once no emulation is left on it.
  const [win, [iw, ih]] = await Promise.all([
    driver.cdp.send('Browser.getWindowForTarget', { targetId: tab.targetId }) as Promise<{ windowId: number; bounds: { width: number; height: number } }>,
    (async () => {
      await session?.send('Emulation.clearDeviceMetricsOverride').catch(() => undefined);
      return (await tab.page.evaluate('[innerWidth, innerHeight]')) as [number, number];
    })(),
  ]);
  const was = { w: iw, h: ih };
  const ww = Math.max(w, WINDOW_MIN_VIEWPORT_WIDTH);
  if (iw === ww && ih === h) return { was, now: was };
  // The page starts listening before the window moves (it checks the size it has first, so a
  // resize that came before its listener is seen too): the wait costs no round trip after the move.
  const sized = Promise.race([
    tab.page.evaluate(SIZE_REACHED, [ww, h, LAYOUT_SETTLE_MS] as const).catch(() => false),
    new Promise<false>((r) => setTimeout(() => r(false), LAYOUT_SETTLE_MS).unref()),
  ]);
  await driver.cdp.send('Browser.setWindowBounds', { windowId: win.windowId, bounds: { width: ww + (win.bounds.width - iw), height: h + (win.bounds.height - ih) } });
  const reached = await sized;
  if (reached) return { was, now: { w: ww, h } };
  const [nw, nh] = (await tab.page.evaluate('[innerWidth, innerHeight]')) as [number, number];
  return { was, now: { w: nw, h: nh } };
}
