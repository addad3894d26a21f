/**
 * A take whose encoder falls behind the page still ends on the page's last picture: the frames
 * past the encoder's backlog give way to newer ones, never the newest. The encoder cannot be made
 * slow on purpose with a real page (its speed is the machine's), so a stand-in CDP session hands
 * the take a burst of painted frames faster than any encode, with the clock stood still between
 * them; the encode, the file and its frames are real.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VIDEO_FPS_DEFAULT, VideoTake } from '../src/main/browser/tools/video-take.js';
import { framesOf, meanOf, pixelsOf } from './helpers/webm-frames.js';
import { StandInSession, painted, standInTab } from './helpers/video-stand-in.js';

afterEach(() => { vi.useRealTimers(); });

describe('a take whose encoder is behind the page', () => {
  it('keeps the page\'s last picture and counts only the frames that gave way', async () => {
    const white = await painted(255, 255, 255);
    const grey = await painted(128, 128, 128);
    const green = await painted(0, 255, 0);
    const session = new StandInSession(white);
    const tab = standInTab();
    vi.useFakeTimers({ toFake: ['performance'] });
    const take = new VideoTake(tab, 'default/behind/lead', session.cdp, VIDEO_FPS_DEFAULT, 'behind.webm');
    await take.start();
    // Twenty paints a frame's gap apart, all before any encode can finish: the last turns green.
    const burst = 20;
    for (let i = 0; i < burst; i++) {
      vi.advanceTimersByTime(1000 / VIDEO_FPS_DEFAULT);
      session.paint(i === burst - 1 ? green : grey, i);
    }
    vi.useRealTimers();
    const file = await take.end();
    const frames = framesOf(file);
    // The green paint has its own frame at the time it was painted, not only the stop's picture after it.
    const paintedAt = burst * (1000 / VIDEO_FPS_DEFAULT);
    const atPaint = frames.find((f) => Math.abs(f.atMs - paintedAt) < 1);
    expect(atPaint, 'a frame stands at the time the page painted green').toBeDefined();
    const seen = meanOf(await pixelsOf(atPaint!), 600, 300, 80, 80);
    expect(seen[1], 'the frame at the last paint is the green the page painted').toBeGreaterThan(200);
    expect(seen[0]).toBeLessThan(60);
    const last = meanOf(await pixelsOf(frames.at(-1)!), 600, 300, 80, 80);
    expect(last[1], 'the file ends on the green').toBeGreaterThan(200);
    // The encoder was behind: some grey paints gave way, and are counted for the stop's answer.
    expect(take.dropped, 'paints between the backlog and the newest gave way').toBeGreaterThan(0);
    // The first picture, the paints, the stop's picture and the last frame held to the file's end.
    expect(take.frameCount + take.dropped).toBeLessThanOrEqual(burst + 3);
  });
});
