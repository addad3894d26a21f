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
  await driver.cdp.send('Browser.setWindowBounds', { windowId: win.windowId, bounds: { width: ww + (win.bounds.width - iw), height: h + (win.bounds.height - ih) } });
  const reached = await tab.page.waitForFunction(`innerWidth === ${ww} && innerHeight === ${h}`, undefined, { timeout: LAYOUT_SETTLE_MS }).then(() => true, () => false);
  if (reached) return { was, now: { w: ww, h } };
  const [nw, nh] = (await tab.page.evaluate('[innerWidth, innerHeight]')) as [number, number];
  return { was, now: { w: nw, h: nh } };
}
