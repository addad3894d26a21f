/**
 * A take stopped while the page's last paint is still on its way ends on that paint: the stop
 * keeps the page as it is at that moment. A real compositor is late only on a loaded machine and
 * cannot be made so on purpose, so a stand-in CDP session paints the page green without sending
 * the screencast frame, as a late compositor does; the encode, the file and its frames are real.
 */
import { describe, expect, it } from 'vitest';
import { VIDEO_FPS_DEFAULT, VideoTake } from '../src/main/browser/tools/video-take.js';
import { framesOf, meanOf, pixelsOf } from './helpers/webm-frames.js';
import { StandInSession, painted, standInTab } from './helpers/video-stand-in.js';

describe('a take stopped before the page\'s last frame arrived', () => {
  it('ends on the page as it was at the stop', async () => {
    const white = await painted(255, 255, 255);
    const green = await painted(0, 255, 0);
    const session = new StandInSession(white);
    const take = new VideoTake(standInTab(), 'default/late/lead', session.cdp, VIDEO_FPS_DEFAULT, 'late.webm');
    await take.start();
    await new Promise((r) => setTimeout(r, 100));
    session.paint(white, 1);
    await new Promise((r) => setTimeout(r, 100));
    // The page turns green; its screencast frame has not come when the take is stopped.
    session.now = green;
    const frames = framesOf(await take.end());
    const last = meanOf(await pixelsOf(frames.at(-1)!), 600, 300, 80, 80);
    expect(last[1], 'the file ends on the green the page showed at the stop').toBeGreaterThan(200);
    expect(last[0]).toBeLessThan(60);
    expect(frames.some((f) => f.atMs < 150), 'the frames before stay').toBe(true);
  });
});
