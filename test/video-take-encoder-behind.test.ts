/**
 * A take whose encoder falls behind the page still ends on the page's last picture: the frames
 * past the encoder's backlog give way to newer ones, never the newest. The encoder cannot be made
 * slow on purpose with a real page (its speed is the machine's), so a stand-in CDP session hands
 * the take a burst of painted frames faster than any encode, with the clock stood still between
 * them; the encode, the file and its frames are real.
 */
import { EventEmitter } from 'node:events';
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CDPSession } from 'playwright-core';
import type { Tab } from '../src/main/browser/tabs.js';
import { VIDEO_FPS_DEFAULT, VIDEO_HEIGHT, VIDEO_WIDTH, VideoTake } from '../src/main/browser/tools/video-take.js';
import { framesOf, meanOf, pixelsOf } from './helpers/webm-frames.js';

/** A painted frame of one colour, as the screencast sends it: a base64 JPEG. */
async function painted(r: number, g: number, b: number): Promise<string> {
  const jpeg = await sharp({ create: { width: VIDEO_WIDTH, height: VIDEO_HEIGHT, channels: 3, background: { r, g, b } } }).jpeg().toBuffer();
  return jpeg.toString('base64');
}

/** Stands in for the tab's CDP session: answers every call at once, and sends frames when told. */
class StandInSession extends EventEmitter {
  constructor(private readonly first: string) { super(); }
  async send(method: string): Promise<unknown> { return method === 'Page.captureScreenshot' ? { data: this.first } : {}; }
  async detach(): Promise<void> {}
}

afterEach(() => { vi.useRealTimers(); });

describe('a take whose encoder is behind the page', () => {
  it('keeps the page\'s last picture and counts only the frames that gave way', async () => {
    const white = await painted(255, 255, 255);
    const grey = await painted(128, 128, 128);
    const green = await painted(0, 255, 0);
    const session = new StandInSession(white);
    const tab = { number: 1, pageId: 'p1', page: new EventEmitter() } as unknown as Tab;
    vi.useFakeTimers({ toFake: ['performance'] });
    const take = new VideoTake(tab, 'default/behind/lead', session as unknown as CDPSession, VIDEO_FPS_DEFAULT, 'behind.webm');
    await take.start();
    // Twenty paints a frame's gap apart, all before any encode can finish: the last turns green.
    const burst = 20;
    for (let i = 0; i < burst; i++) {
      vi.advanceTimersByTime(1000 / VIDEO_FPS_DEFAULT);
      session.emit('Page.screencastFrame', { data: i === burst - 1 ? green : grey, sessionId: i });
    }
    vi.useRealTimers();
    const file = await take.end();
    const frames = framesOf(file);
    const last = meanOf(await pixelsOf(frames.at(-1)!), 600, 300, 80, 80);
    expect(last[1], 'the file ends on the green the page last painted').toBeGreaterThan(200);
    expect(last[0]).toBeLessThan(60);
    // The encoder was behind: some grey paints gave way, and are counted for the stop's answer.
    expect(take.dropped, 'paints between the backlog and the newest gave way').toBeGreaterThan(0);
    expect(take.frameCount + take.dropped).toBeLessThanOrEqual(burst + 2);
  });
});
