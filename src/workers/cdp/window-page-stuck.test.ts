/**
 * A page that did not follow its window's resize is resized anew: Chromium sometimes leaves a
 * page at its old size when a busy host gets a resize, and setting the same bounds again changes
 * nothing it can see. Which resize a host drops cannot be chosen on a real Chromium, so a stand-in
 * connection plays the browser: the page follows every change of the window's size but the first.
 */
import { describe, expect, it } from 'vitest';
import type { CdpConnection } from './connection.js';
import { WindowPlacer } from './windows.js';

/** Chromium's frame on X: 87 px of tab strip and toolbar above the page, nothing on the sides. */
const CHROME_TOP = 87;

class StandInBrowser {
  bounds = { left: 3000, top: 0, width: 1280, height: 690 + CHROME_TOP };
  page = { w: 1280, h: 690 };
  private resizes = 0;

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    if (method === 'Browser.getWindowForTarget') return Promise.resolve({ windowId: 1, bounds: { ...this.bounds } });
    if (method === 'Browser.setWindowBounds') {
      const b = params.bounds as Partial<typeof this.bounds> & { windowState?: string };
      const sized = (b.width !== undefined && b.width !== this.bounds.width) || (b.height !== undefined && b.height !== this.bounds.height);
      Object.assign(this.bounds, Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'windowState')));
      // The first resize never reaches the page; a later one does, when the size really changed.
      if (sized && this.resizes++ > 0) this.page = { w: this.bounds.width, h: this.bounds.height - CHROME_TOP };
      return Promise.resolve({});
    }
    if (method === 'Runtime.evaluate') {
      const expr = String(params.expression);
      if (expr.includes('innerWidth')) return Promise.resolve({ result: { value: [this.page.w, this.page.h] } });
      return Promise.resolve({ result: { value: 0 } });
    }
    return Promise.resolve({});
  }
}

describe('a window whose page kept its old size', () => {
  it('is resized again until the page has the asked viewport', async () => {
    const browser = new StandInBrowser();
    const placer = new WindowPlacer(browser as unknown as CdpConnection);
    const placed = await placer.place('t1', 's1', 500, 723);
    expect(browser.page).toEqual({ w: 500, h: 723 });
    expect(placed.viewport).toMatchObject({ w: 500, h: 723, y: CHROME_TOP });
  });
});
