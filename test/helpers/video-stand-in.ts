/**
 * A stand-in for a tab's CDP session, for the take's faults a real page cannot be made to show
 * (an encoder slower than the page, a compositor frame still on its way at the stop): it answers
 * every call at once, answers a screenshot with the picture the page shows now, and sends
 * screencast frames only when told.
 */
import { EventEmitter } from 'node:events';
import sharp from 'sharp';
import type { CDPSession } from 'playwright-core';
import type { Tab } from '../../src/main/browser/tabs.js';
import { VIDEO_HEIGHT, VIDEO_WIDTH } from '../../src/main/browser/tools/video-take.js';

/** A painted frame of one colour, as the screencast sends it: a base64 JPEG. */
export async function painted(r: number, g: number, b: number): Promise<string> {
  const jpeg = await sharp({ create: { width: VIDEO_WIDTH, height: VIDEO_HEIGHT, channels: 3, background: { r, g, b } } }).jpeg().toBuffer();
  return jpeg.toString('base64');
}

export class StandInSession extends EventEmitter {
  /** The picture the page shows now: what a screenshot answers. */
  constructor(public now: string) { super(); }
  async send(method: string): Promise<unknown> { return method === 'Page.captureScreenshot' ? { data: this.now } : {}; }
  async detach(): Promise<void> {}
  /** The page paints `data`, and the screencast sends it. */
  paint(data: string, sessionId: number): void { this.now = data; this.emit('Page.screencastFrame', { data, sessionId }); }
  get cdp(): CDPSession { return this as unknown as CDPSession; }
}

/** A tab as the take sees it: its number, page id, and a page that can crash. */
export function standInTab(): Tab {
  return { number: 1, pageId: 'p1', page: new EventEmitter() } as unknown as Tab;
}
