/**
 * The capture reads a host's screen in place: Xvfb's framebuffer file mapped into the process
 * (native/fbmap). A real host paints a page; the mapped rows must be the very bytes a read of
 * the file gives, and the pipeline must say it maps (a missing addon would silently cost ~3 ms
 * of CPU a frame).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Framebuffer } from '../dist/src/workers/cdp/framebuffer.js';
import { FrameRig, RigViewer, sleep } from './helpers/frame-rig.js';

let rig: FrameRig;

/** A page that paints once and then stands still, so two reads of the screen can be compared. */
const STILL_PAGE = '<body style="margin:0;background:#2a6"><h1 style="color:#fff">still</h1></body>';

beforeAll(async () => { rig = await FrameRig.start('fb-mapped', { '/still.html': STILL_PAGE }); }, 60_000);
afterAll(async () => { await rig?.stop(); });

describe("the host's framebuffer", () => {
  it('is mapped, and its mapped rows are the bytes the file holds', async () => {
    expect(rig.pipeline.framebuffer).toBe('mapped');
    const target = await rig.openTab('still');
    await rig.pipeline.capture(target, 1, 1280, 720);
    const v = await new RigViewer(rig).open();
    v.watch(1);
    await sleep(500);
    const fb = new Framebuffer(rig.host.fbDir);
    expect(fb.unmappedBecause).toBe('');
    const rows = fb.height;
    const read = Buffer.alloc(rows * fb.bytesPerLine);
    // A caret or a late paint may still move the screen between two reads: a few tries.
    let same = false;
    for (let attempt = 0; attempt < 20 && !same; attempt++) {
      fb.readRows(0, rows, read);
      const view = fb.rows(0, rows, Buffer.alloc(0));
      same = Buffer.compare(Buffer.from(view.buffer, view.byteOffset, view.byteLength), read) === 0;
    }
    v.close();
    await rig.pipeline.uncapture(target);
    fb.close();
    expect(same).toBe(true);
    // Something was painted: not an all-black screen.
    expect(read.some((b) => b !== 0)).toBe(true);
  });
});
