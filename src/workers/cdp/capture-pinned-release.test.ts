/**
 * A tab's last frame, still being encoded when its last viewer leaves, is given back once the
 * encoder lets go of it: the give-back at the leave has to skip a slot an encode holds, and a tab
 * nobody watches captures nothing more that would try again (one frame of the tab stayed resident
 * for good). Which frame is mid-encode at the leave cannot be chosen with a real encoder, so the
 * test pins the slot itself, as the encoder does; the ring, the framebuffer file and the capture
 * are real.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameRing, F_SEQ } from '../../shared/ring.js';
import type { CaptureFrame } from '../../shared/capture.js';
import { HostCapture } from './capture.js';
import { Framebuffer } from './framebuffer.js';

const SCREEN = { w: 64, h: 48 };
const XWD_HEADER_BYTES = 104;

/** An XWD file as Xvfb's -fbdir writes it: a 32 bpp screen, no colour map, a grey picture. */
function framebufferDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'forge-fb-'));
  const h = Buffer.alloc(XWD_HEADER_BYTES);
  h.writeUInt32BE(XWD_HEADER_BYTES, 0);
  h.writeUInt32BE(SCREEN.w, 16);
  h.writeUInt32BE(SCREEN.h, 20);
  h.writeUInt32BE(32, 44);
  h.writeUInt32BE(SCREEN.w * 4, 48);
  h.writeUInt32BE(0, 76);
  writeFileSync(join(dir, 'Xvfb_screen0'), Buffer.concat([h, Buffer.alloc(SCREEN.w * SCREEN.h * 4, 0x80)]));
  return dir;
}

const cleanups: (() => void)[] = [];
afterEach(() => { for (const c of cleanups.splice(0)) c(); });

describe('a frame mid-encode when its tab\'s last viewer leaves', () => {
  it('is given back once the encoder lets go of it, and the ring holds nothing', async () => {
    const dir = framebufferDir();
    const fb = new Framebuffer(dir);
    const ring = FrameRing.create(4, SCREEN.w, SCREEN.h);
    const frames: CaptureFrame[] = [];
    let held = -1;
    const capture = new HostCapture(ring, fb, (f) => frames.push(f), (b) => { held = b; });
    cleanups.push(() => { capture.stop(); fb.close(); rmSync(dir, { recursive: true, force: true }); });

    capture.watch('target-1', 1, { x: 0, y: 0, ...SCREEN });
    await expect.poll(() => frames.length).toBeGreaterThan(0);
    const { slot, seq } = frames[0]!;
    expect(ring.get(slot, F_SEQ)).toBe(seq);
    expect(ring.pin(slot, seq)).toBe(true);

    capture.unwatch(1);
    expect(held).toBe(SCREEN.w * SCREEN.h * 4);

    ring.release(slot);
    await expect.poll(() => held, { timeout: 2_000 }).toBe(0);
    expect(capture.heldBytes()).toBe(0);
  });
});
