/**
 * The frame path end to end: a real host (Xvfb + headful Chromium), the capture and encode
 * workers, the real relay worker on uWS, and real `ws` viewers on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { SCREEN_WIDTH } from '../dist/src/shared/capture.js';
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, readFrameHeader, type FrameHeader } from '../dist/src/shared/protocol.js';
import type { FromRelay } from '../dist/src/workers/relay/protocol.js';
import type { FanoutCounters } from '../dist/src/workers/relay/fanout.js';
import { FrameRig, RigViewer, sleep } from './helpers/frame-rig.js';

/** Random pixels every frame: ~1 MB keyframes, so a socket that stops reading fills its kernel buffers (~4 MB) in a few frames. */
const NOISE_PAGE = `<body style="margin:0"><canvas id=c width=1280 height=720></canvas><script>
const g = c.getContext('2d'), d = g.createImageData(1280, 720), u = new Uint32Array(d.data.buffer);
(function f() { for (let i = 0; i < u.length; i++) u[i] = (Math.random() * 0xffffffff) | 0xff000000; g.putImageData(d, 0, 0); requestAnimationFrame(f); })();
</script></body>`;

let rig: FrameRig;

/** A viewer: a real ws client that records every frame header and checks the patch rule. */
class Viewer extends RigViewer {
  frames: Array<FrameHeader & { bytes: Uint8Array }> = [];
  holds = -1;
  /** Patches that arrived for a frame the viewer did not hold: must stay empty. */
  brokenPatches: FrameHeader[] = [];
  constructor(rig: FrameRig) {
    super(rig);
    this.ws.on('message', (data: Buffer, binary: boolean) => {
      if (!binary || data[0] !== 1) return;
      const h = readFrameHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
      if (h.flags & FRAME_FLAG_KEYFRAME) this.holds = h.seq;
      else if (h.baseSeq !== this.holds && h.seq !== this.holds) this.brokenPatches.push(h);
      else this.holds = h.seq;
      this.frames.push({ ...h, bytes: data.subarray(FRAME_HEADER_BYTES) });
    });
  }
}

async function fanoutStats(): Promise<FanoutCounters> {
  return new Promise((resolve) => {
    const on = (m: FromRelay): void => { if (m.t === 'fanout_stats') { rig.relay.off('message', on); resolve(m.counters); } };
    rig.relay.on('message', on);
    rig.post({ t: 'fanout_stats' });
  });
}

beforeAll(async () => { rig = await FrameRig.start('frames', { '/noise.html': NOISE_PAGE }); });
afterAll(async () => { await rig?.stop(); });

describe('frames from a watched tab', () => {
  it('an animating page reaches a real socket as changing WebP frames of the asked viewport, encoded by libwebp directly', async () => {
    // The fallback (sharp) works too, at ~1/4 more CPU a frame: a host must not fall back silently.
    expect([rig.pipeline.encodeMode, rig.pipeline.encodeFallback]).toEqual(['native', '']);
    const target = await rig.openTab('anim');
    await rig.pipeline.capture(target, 10, 1280, 720);
    const v = await new Viewer(rig).open();
    v.watch(10);
    // Under load the first frames take a while; the invariant is that they come and change.
    for (let i = 0; i < 200 && v.frames.length <= 5; i++) await sleep(100);
    v.close();
    await rig.pipeline.uncapture(target);
    expect(v.frames.length).toBeGreaterThan(5);
    expect(v.frames[0]!.flags & FRAME_FLAG_KEYFRAME).toBeTruthy();
    const seqs = v.frames.map((f) => f.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    // The first picture is whole: WebP pictures of the full width that, one below the other, cover
    // the asked viewport (an idle encoder sends a big picture as strips encoded side by side).
    const parts = v.frames.filter((f) => f.seq === v.frames[0]!.seq);
    const sizes = await Promise.all(parts.map(async (f) => { const m = await sharp(f.bytes).metadata(); return [m.format, f.x, f.y, m.width, m.height]; }));
    let y = 0;
    for (const s of sizes) { expect(s).toEqual(['webp', 0, y, 1280, s[4]]); y += s[4] as number; }
    expect(y).toBe(720);
    const distinct = new Set(v.frames.map((f) => Buffer.from(f.bytes).toString('base64')));
    expect(distinct.size).toBeGreaterThan(v.frames.length / 2);
    expect(v.brokenPatches).toEqual([]);
  });

  it('a slow viewer is skipped without slowing another, and gets a keyframe once it reads again', async () => {
    const target = await rig.openTab('noise');
    await rig.pipeline.capture(target, 11, 1280, 720);
    const fast = await new Viewer(rig).open();
    const slow = await new Viewer(rig).open();
    // Stop reading before any frame: the kernel's buffers stay small (never grown by reading), so they fill in a few frames.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const before = await fanoutStats();
    fast.watch(11);
    slow.watch(11);
    const fastBefore = fast.frames.length;
    // Until the kernel's buffers are full and the relay has to skip it (a few MB of frames).
    let during = await fanoutStats();
    for (let waited = 0; during.skipped === before.skipped && waited < 30_000; waited += 500) {
      await sleep(500);
      during = await fanoutStats();
    }
    const fastDuring = fast.frames.length - fastBefore;
    const slowSeenBeforeResume = slow.frames.length;
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await sleep(1500);
    fast.close();
    slow.close();
    await rig.pipeline.uncapture(target);
    expect(during.skipped).toBeGreaterThan(before.skipped);
    expect(during.maxFramesHeld).toBeLessThanOrEqual(1);
    // The fast viewer got every frame the slow one was skipped for.
    expect(fastDuring).toBeGreaterThan(during.skipped - before.skipped);
    // After the skip, what the slow viewer gets next starts with a keyframe (patch rule holds).
    const afterSkip = slow.frames.slice(slowSeenBeforeResume);
    expect(afterSkip.length).toBeGreaterThan(0);
    expect(slow.brokenPatches).toEqual([]);
    expect(fast.brokenPatches).toEqual([]);
  });

  it('patches reach only viewers that hold the frame they patch, and a late viewer starts with a keyframe', async () => {
    const target = await rig.openTab('simple');
    await rig.pipeline.capture(target, 12, 1280, 720);
    const a = await new Viewer(rig).open();
    a.watch(12);
    const patchesOf = (v: Viewer): number => v.frames.filter((f) => !(f.flags & FRAME_FLAG_KEYFRAME)).length;
    for (let waited = 0; patchesOf(a) <= 20 && waited < 15_000; waited += 100) await sleep(100);
    const b = await new Viewer(rig).open();
    b.watch(12);
    for (let waited = 0; patchesOf(b) <= 5 && waited < 15_000; waited += 100) await sleep(100);
    a.close();
    b.close();
    await rig.pipeline.uncapture(target);
    const patches = a.frames.filter((f) => !(f.flags & FRAME_FLAG_KEYFRAME));
    expect(patches.length).toBeGreaterThan(20);
    // A small change travels as a small patch, not a whole frame.
    expect(Math.max(...patches.map((p) => p.w * p.h))).toBeLessThan(1280 * 720 / 2);
    expect(b.frames[0]!.flags & FRAME_FLAG_KEYFRAME).toBeTruthy();
    expect(a.brokenPatches).toEqual([]);
    expect(b.brokenPatches).toEqual([]);
  });

  it('a tab nobody watches is never captured: its window is parked off-screen and no frame of it is sent', async () => {
    const watched = await rig.openTab('anim');
    const unwatched = await rig.openTab('anim');
    await sleep(300);
    await rig.pipeline.capture(watched, 13, 1280, 720);
    const v = await new Viewer(rig).open();
    v.watch(13);
    const other = await new Viewer(rig).open();
    other.watch(14); // a viewer of a tab id that is not captured gets nothing
    for (let waited = 0; v.frames.length <= 2 && waited < 10_000; waited += 100) await sleep(100);
    await sleep(300);
    const win = await rig.cdp.send<{ bounds: { left: number } }>('Browser.getWindowForTarget', { targetId: unwatched });
    expect(win.bounds.left).toBeGreaterThanOrEqual(SCREEN_WIDTH);
    await rig.pipeline.uncapture(watched);
    // Frames already encoded when the capture stopped may still be on their way (a second's quiet); then nothing.
    for (let seen = -1, waited = 0; seen !== v.frames.length && waited < 15_000; waited += 1000) {
      seen = v.frames.length;
      await sleep(1000);
    }
    const n = v.frames.length;
    await sleep(500);
    v.close();
    other.close();
    expect(n).toBeGreaterThan(2);
    expect(v.frames.length).toBe(n);
    expect(v.frames.every((f) => f.id === 13)).toBe(true);
    expect(other.frames).toEqual([]);
    const parked = await rig.cdp.send<{ bounds: { left: number } }>('Browser.getWindowForTarget', { targetId: watched });
    expect(parked.bounds.left).toBeGreaterThanOrEqual(SCREEN_WIDTH);
  });
});
