/**
 * What a viewer's composited picture looks like after a page animated: a real host, the capture
 * and encode workers, the real relay on uWS, and a viewer that draws every keyframe and patch at
 * its offset (decoded with sharp, as the web client draws them with createImageBitmap). Once the
 * page stops, that picture must match a fresh keyframe of the same moment, and the screen itself.
 * Held for each encoder a host may run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import sharp from 'sharp';
import { Framebuffer } from '../dist/src/workers/cdp/framebuffer.js';
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, readFrameHeader, type FrameHeader } from '../dist/src/shared/protocol.js';
import { FrameRig, RigViewer, sleep } from './helpers/frame-rig.js';

const W = 1280;
const H = 720;
/**
 * Most a 16x16 block of the composed picture may be further from the screen than a fresh
 * keyframe is there, mean per channel: a trail left by an edge that moved on shows as 3–4;
 * blocks a shape passed through and that were re-encoded whole stay within about 1.5.
 */
const BLOCK_EXCESS_MAX = 2;
/** Channel values off by more than 32 (a visible step): at most this many times the keyframe's own, plus the slack. */
const FAR_PIXELS_RATIO_MAX = 1.2;
const FAR_PIXELS_SLACK = 300;
/** Mean error over the whole picture, per channel: WebP q75 of the anim page's box is under 1. */
const MEAN_ERROR_MAX = 3;

let rig: FrameRig;

/** A viewer that composes what it receives into an RGB picture, by the client's patch rule. */
class ComposingViewer extends RigViewer {
  holds = -1;
  picture = Buffer.alloc(W * H * 3);
  received: FrameHeader[] = [];
  private chain: Promise<void> = Promise.resolve();
  constructor(rig: FrameRig) {
    super(rig);
    this.ws.on('message', (data: Buffer, binary: boolean) => {
      if (!binary || data[0] !== 1) return;
      const h = readFrameHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
      const bytes = Buffer.from(data.subarray(FRAME_HEADER_BYTES));
      this.chain = this.chain.then(() => this.draw(h, bytes));
    });
  }
  private async draw(h: FrameHeader, bytes: Buffer): Promise<void> {
    const key = (h.flags & FRAME_FLAG_KEYFRAME) !== 0;
    if (!key && h.baseSeq !== this.holds && h.seq !== this.holds) return;
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    for (let y = 0; y < info.height; y++) data.copy(this.picture, ((h.y + y) * W + h.x) * 3, y * info.width * 3, (y + 1) * info.width * 3);
    this.holds = h.seq;
    this.received.push(h);
  }
  async settled(): Promise<void> { await this.chain; }
}

/** Side of the blocks errors are averaged over, px: WebP's macroblock. */
const BLOCK = 16;

/**
 * How far `picture` is from `truth` beyond what `reference` (a fresh keyframe) is: the largest
 * excess of a block's mean error (per channel) over the reference's error there, and the pixels
 * off by more than `far` in any channel, in each.
 */
function compare(picture: Buffer, reference: Buffer, truth: Buffer, far = 32): { worstExcess: number; worstAt: [number, number]; mean: number; farPixels: number; referenceFarPixels: number } {
  let worstExcess = 0;
  let worstAt: [number, number] = [0, 0];
  let total = 0;
  for (let by = 0; by < H; by += BLOCK) {
    for (let bx = 0; bx < W; bx += BLOCK) {
      let ep = 0;
      let er = 0;
      for (let y = by; y < by + BLOCK; y++) {
        for (let i = (y * W + bx) * 3, end = i + BLOCK * 3; i < end; i++) {
          ep += Math.abs(picture[i]! - truth[i]!);
          er += Math.abs(reference[i]! - truth[i]!);
        }
      }
      total += ep;
      const excess = (ep - er) / (BLOCK * BLOCK * 3);
      if (excess > worstExcess) { worstExcess = excess; worstAt = [bx, by]; }
    }
  }
  let farPixels = 0;
  let referenceFarPixels = 0;
  for (let i = 0; i < picture.length; i++) {
    if (Math.abs(picture[i]! - truth[i]!) > far) farPixels++;
    if (Math.abs(reference[i]! - truth[i]!) > far) referenceFarPixels++;
  }
  return { worstExcess, worstAt, mean: total / (W * H * 3), farPixels, referenceFarPixels };
}

/** The viewport's pixels on the host's screen right now, as RGB. */
function screen(vp: { x: number; y: number }): Buffer {
  const fb = new Framebuffer(rig.host.fbDir);
  const rows = Buffer.alloc(H * fb.bytesPerLine);
  fb.readRows(vp.y, H, rows);
  fb.close();
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const s = y * fb.bytesPerLine + (vp.x + x) * 4;
      const d = (y * W + x) * 3;
      out[d] = rows[s + 2]!; out[d + 1] = rows[s + 1]!; out[d + 2] = rows[s]!;
    }
  }
  return out;
}

// libwebp called directly (what hosts run), and sharp (the fallback where that addon did not build).
describe.each(['native', 'libuv'] as const)('the picture a viewer composes from keyframes and patches encoded by the %s encoder', (mode) => {
  beforeAll(async () => {
    rig = await FrameRig.start(`fidelity-${mode}`, {}, { mode });
    expect([rig.pipeline.encodeMode, rig.pipeline.encodeFallback]).toEqual([mode, '']);
  });
  afterAll(async () => { await rig?.stop(); });

  it('after the anim page moves for a while and stops, matches a fresh keyframe and the screen, with no trail left anywhere', async () => {
    const targetId = await rig.openTab('anim');
    const { sessionId } = await rig.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const vp = await rig.pipeline.capture(targetId, 20, W, H);
    const watcher = await new ComposingViewer(rig).open();
    watcher.watch(20);
    await sleep(2000);
    // Then only the box moves over the page's flat background: frames become small patches.
    await rig.cdp.send('Runtime.evaluate', { expression: "document.getElementById('c').style.display = 'none'" }, sessionId);
    await sleep(3000);
    // Stop every animation (the page's and its stamp's) at one frame.
    await rig.cdp.send('Runtime.evaluate', { expression: 'window.requestAnimationFrame = () => 0' }, sessionId);
    await sleep(1500);
    await watcher.settled();
    const fresh = await new ComposingViewer(rig).open();
    fresh.watch(20);
    for (let i = 0; i < 100 && fresh.received.length === 0; i++) await sleep(50);
    await fresh.settled();
    const truth = screen(vp);
    watcher.close();
    fresh.close();
    await rig.pipeline.uncapture(targetId);
    const patches = watcher.received.filter((h) => !(h.flags & FRAME_FLAG_KEYFRAME)).length;
    const c = compare(watcher.picture, fresh.picture, truth);
    if (process.env.FORGE_FIDELITY_DUMP) {
      const dir = process.env.FORGE_FIDELITY_DUMP;
      const raw = { raw: { width: W, height: H, channels: 3 as const } };
      await sharp(watcher.picture, raw).png().toFile(join(dir, 'composed.png'));
      await sharp(fresh.picture, raw).png().toFile(join(dir, 'keyframe.png'));
      await sharp(truth, raw).png().toFile(join(dir, 'screen.png'));
      console.log(JSON.stringify({ frames: watcher.received.length, patches, ...c }));
    }
    expect(watcher.received.length).toBeGreaterThan(20);
    expect(fresh.received[0]!.flags & FRAME_FLAG_KEYFRAME).toBeTruthy();
    expect(patches).toBeGreaterThan(10);
    expect(c.worstExcess).toBeLessThan(BLOCK_EXCESS_MAX);
    expect(c.farPixels).toBeLessThan(c.referenceFarPixels * FAR_PIXELS_RATIO_MAX + FAR_PIXELS_SLACK);
    expect(c.mean).toBeLessThan(MEAN_ERROR_MAX);
  });
});
