/**
 * One recording of a tab: the page's own compositor frames (CDP screencast, sent as the page
 * paints), each made a VP8 key frame (a lossy WebP's payload) as it arrives, kept in memory and
 * put in a WebM when the take ends. Nothing is written to the server's disk.
 */
import sharp from 'sharp';
import type { CDPSession } from 'playwright-core';
import { log } from '../../logging.js';
import type { Tab } from '../tabs.js';
import { SEAT_FILE_MAX_BYTES } from './seat-files.js';
import { vp8OfWebp, webmOf, type VideoChapter, type VideoFrame } from './webm.js';

/** The file's size, px: the spec's recording, and the page's layout while the take runs. */
export const VIDEO_WIDTH = 1280;
export const VIDEO_HEIGHT = 720;
/** Frames a second kept by default (Playwright MCP's default); a page that paints less gives fewer. */
export const VIDEO_FPS_DEFAULT = 25;
/** Most frames a second: each costs an encode of a 1280x720 picture on a 2-core machine. */
export const VIDEO_FPS_MAX = 30;
/** VP8 quality, 0–100: text stays readable at about 40 KB a frame. */
const VIDEO_QUALITY = 60;
/**
 * Frames waiting for their encode at most: past it the encoder is behind, and one more frame waits
 * in a slot of its own, each newer frame taking the place of the one there (counted as dropped), so
 * the page's last picture is always encoded even when the encoder fell behind as it painted.
 */
const ENCODE_BACKLOG_MAX = 8;
/** The file's bound, bytes: a little under what one session file may be, for the container around the frames. */
export const VIDEO_MAX_BYTES = SEAT_FILE_MAX_BYTES - 1024 * 1024;
/** Longest wait for the screencast's stop, ms: a crashed renderer never answers, and the frames in hand make the file anyway. */
const SCREENCAST_STOP_MAX_MS = 2_000;

/** `work`, or after `ms` nothing: a call to a page that may never answer. */
function within(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work.catch(() => undefined), new Promise((r) => { timer = setTimeout(r, ms); })]).finally(() => clearTimeout(timer));
}

export class VideoTake {
  private readonly frames: VideoFrame[] = [];
  private bytes = 0;
  private readonly started = performance.now();
  private lastAt = -Infinity;
  private held?: { data: string; at: number };
  private flush?: NodeJS.Timeout;
  private encoding: Promise<void> = Promise.resolve();
  private backlog = 0;
  /** The newest frame that came while the backlog was full: encoded as soon as a place frees. */
  private waiting?: { data: string; at: number };
  /** Frames the encoder could not keep up with. */
  dropped = 0;
  /** Why the take stopped keeping frames before it was stopped (the file's bound), or ''. */
  cut = '';
  ended?: Promise<Buffer>;
  /** The take's length, ms, once it has ended. */
  durationMs = 0;
  /** Chapter marks, in the order they were made: written into the file's Chapters. */
  readonly chapters: VideoChapter[] = [];
  /** What befell the tab's page during the take (a crash, a rebuild), in the agent's words, for the stop's answer. */
  readonly events: string[] = [];

  constructor(readonly tab: Tab, readonly seat: string, private session: CDPSession, readonly fps: number, readonly name: string) {}

  /** Starts the screencast; the first frame is the page as it is now (a still page paints no more). */
  async start(): Promise<void> {
    const session = this.session;
    const page = this.tab.page;
    page.once('crash', () => {
      if (this.ended || this.session !== session) return;
      this.events.push(`the page in tab ${this.tab.number} crashed at ${(this.elapsedMs() / 1000).toFixed(1)} s of the take; the frames up to then are kept`);
    });
    session.on('Page.screencastFrame', (e: { data: string; sessionId: number }) => {
      session.send('Page.screencastFrameAck', { sessionId: e.sessionId }).catch(() => undefined);
      if (this.session === session) this.offer(e.data);
    });
    const first = (await session.send('Page.captureScreenshot', { format: 'jpeg', quality: 90 })) as { data: string };
    this.offer(first.data);
    await session.send('Page.startScreencast', { format: 'jpeg', quality: 90, maxWidth: VIDEO_WIDTH, maxHeight: VIDEO_HEIGHT, everyNthFrame: 1 });
  }

  /**
   * Goes on recording the tab's new page (forge rebuilt it after a crash): the frames so far stay,
   * the last of them shows until the new page's first, and the old page's screencast is let go.
   */
  async follow(session: CDPSession, why: string): Promise<void> {
    if (this.ended) { await session.detach().catch(() => undefined); return; }
    const old = this.session;
    this.session = session;
    void within(old.detach(), SCREENCAST_STOP_MAX_MS);
    this.events.push(`${why} at ${(this.elapsedMs() / 1000).toFixed(1)} s, and the take went on recording the reloaded page`);
    await this.start();
  }

  /** How long the take has run, ms. */
  elapsedMs(): number { return performance.now() - this.started; }

  /** A painted frame: kept at most `fps` a second, the newest of a burst shown when its turn comes. */
  private offer(data: string): void {
    if (this.cut || this.ended) return;
    const at = this.elapsedMs();
    const gap = 1000 / this.fps;
    if (at - this.lastAt >= gap) { this.keep(data, at); return; }
    this.held = { data, at };
    this.flush ??= setTimeout(() => {
      this.flush = undefined;
      const h = this.held;
      this.held = undefined;
      if (h) this.keep(h.data, Math.max(h.at, this.lastAt + gap));
    }, Math.max(0, this.lastAt + gap - at));
  }

  private keep(data: string, at: number): void {
    this.lastAt = at;
    if (this.backlog >= ENCODE_BACKLOG_MAX) {
      if (this.waiting) this.dropped++;
      this.waiting = { data, at };
      return;
    }
    this.backlog++;
    this.encoding = this.encoding.then(async () => {
      try {
        const webp = await sharp(Buffer.from(data, 'base64'))
          .resize(VIDEO_WIDTH, VIDEO_HEIGHT, { fit: 'contain', background: { r: 0, g: 0, b: 0 } })
          .webp({ quality: VIDEO_QUALITY })
          .toBuffer();
        const vp8 = vp8OfWebp(webp);
        if (!vp8 || this.cut) return;
        if (this.bytes + vp8.length > VIDEO_MAX_BYTES) {
          this.cut = `the take stopped keeping frames at ${(at / 1000).toFixed(1)} s, when the file reached its ${Math.round(VIDEO_MAX_BYTES / 1024 / 1024)} MiB bound`;
          return;
        }
        this.frames.push({ vp8, atMs: at });
        this.bytes += vp8.length;
      } catch (e) {
        log.warn({ err: (e as Error).message, tab: this.tab.pageId }, 'a video frame could not be encoded');
      } finally {
        this.backlog--;
        const w = this.waiting;
        this.waiting = undefined;
        if (w) this.keep(w.data, w.at);
      }
    });
  }

  /** Ends the take once: the page as it is now is its last frame, the screencast stops, the frames in hand are encoded, and the file is made. */
  end(): Promise<Buffer> {
    this.ended ??= (async () => {
      clearTimeout(this.flush);
      if (this.held) { const h = this.held; this.held = undefined; this.keep(h.data, h.at); }
      // The page as it is at the stop: a screencast frame still on its way (a busy machine's
      // compositor sends them late) would be lost with the screencast, and with it the end of the take.
      const now = (await within(this.session.send('Page.captureScreenshot', { format: 'jpeg', quality: 90 }), SCREENCAST_STOP_MAX_MS)) as { data?: string } | undefined;
      const nowAt = this.elapsedMs();
      await within(this.session.send('Page.stopScreencast'), SCREENCAST_STOP_MAX_MS);
      await within(this.session.detach(), SCREENCAST_STOP_MAX_MS);
      // The frames in hand first, so the stop's picture takes no waiting frame's place.
      await this.drained();
      if (now?.data && !this.cut) { this.keep(now.data, Math.max(nowAt, this.lastAt + 1)); await this.drained(); }
      const durationMs = Math.max(1, nowAt, this.lastAt + 1);
      this.durationMs = durationMs;
      // The last picture shows until the take's end: a player's last frame lasts to the file's duration.
      const last = this.frames.at(-1);
      if (last && durationMs - last.atMs > 1) this.frames.push({ vp8: last.vp8, atMs: durationMs - 1 });
      return webmOf(this.frames, VIDEO_WIDTH, VIDEO_HEIGHT, durationMs, this.chapters);
    })();
    return this.ended;
  }

  /** Resolves once no frame waits for its encode: a frame waiting for a place is chained on as the one before it finishes. */
  private async drained(): Promise<void> {
    for (let e = this.encoding; ; e = this.encoding) { await e; if (e === this.encoding) break; }
  }

  get frameCount(): number { return this.frames.length; }
}
