/**
 * A frame in parts (a big picture's strips, a patch's bands) reaches the screen whole: the web
 * client's compositor, run in a real headless Chromium, paints once every part it already holds
 * is drawn, so a person never sees the new top half over the old bottom half.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { launchClientBrowser } from './helpers/client-page.js';
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, FRAME_KIND_BROWSER, writeFrameHeader } from '../src/shared/protocol.js';

const W = 64;
const H = 64;

/** What the test puts on the page's window: the bundle, the compositor under test, and its paints. */
interface Rig {
  Frames: { Compositor: new (canvas: HTMLCanvasElement, requestPaint: (cb: () => void) => void) => Comp };
  comp: Comp;
  paints: number[];
  push(bytes: number[]): void;
}
interface Comp { stats: { drawn: number }; setBox(w: number, h: number, dpr: number, bg: string): void; push(m: ArrayBuffer): void }

let browser: Browser;
let page: Page;

/** One frame message: the header and a WebP of a w×h rectangle of one colour at x,y. */
async function part(seq: number, y: number, h: number, grey: number): Promise<number[]> {
  const webp = await sharp({ create: { width: W, height: h, channels: 3, background: { r: grey, g: grey, b: grey } } }).webp({ quality: 90 }).toBuffer();
  const msg = new Uint8Array(FRAME_HEADER_BYTES + webp.byteLength);
  writeFrameHeader(new DataView(msg.buffer), { kind: FRAME_KIND_BROWSER, flags: FRAME_FLAG_KEYFRAME, id: 1, seq, x: 0, y, w: W, h, frameW: W, frameH: H, baseSeq: 0 });
  msg.set(webp, FRAME_HEADER_BYTES);
  return [...msg];
}

beforeAll(async () => {
  const bundle = await build({ entryPoints: ['clients/web/frames/compositor.ts'], bundle: true, write: false, format: 'iife', globalName: 'Frames', target: 'es2022' });
  browser = await launchClientBrowser();
  page = await browser.newPage();
  await page.setContent(`<canvas id="c"></canvas>`);
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  // Every paint the compositor asks for runs at once, and records how many parts were drawn by then.
  await page.evaluate(([w, h]) => {
    const g = window as unknown as Rig;
    g.paints = [];
    const comp = new g.Frames.Compositor(document.getElementById('c') as HTMLCanvasElement, (cb) => { g.paints.push(comp.stats.drawn); cb(); });
    comp.setBox(w, h, 1, '#000');
    g.comp = comp;
    g.push = (bytes: number[]) => comp.push(new Uint8Array(bytes).buffer);
  }, [W, H]);
});

afterAll(async () => { await browser?.close(); });

describe('a frame that comes in parts', () => {
  it('is painted once, after its last part, and shows every part', async () => {
    await page.evaluate((m) => (window as unknown as Rig).push(m), await part(1, 0, H, 0));
    await expect.poll(() => page.evaluate(() => (window as unknown as Rig).comp.stats.drawn)).toBe(1);
    const top = await part(2, 0, 32, 255);
    const bottom = await part(2, 32, 32, 255);
    const paints = await page.evaluate(async ([a, b]) => {
      const g = window as unknown as Rig;
      g.paints.length = 0;
      // The two strips of one picture arrive in one write, as the relay sends them.
      g.push(a);
      g.push(b);
      while (g.comp.stats.drawn < 3) await new Promise((r) => setTimeout(r, 5));
      return g.paints;
    }, [top, bottom]);
    expect(paints).toEqual([3]);
    const shown = await page.evaluate(() => {
      const c = document.getElementById('c') as HTMLCanvasElement;
      const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let dark = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i]! < 128) dark++;
      return dark;
    });
    expect(shown).toBe(0);
  });
});
