/**
 * The devtools group's video ([agent] caps = ["devtools"]): browser_start_video / browser_stop_video
 * record the seat's current tab as a WebM. While a take runs the page is laid out at the file's own
 * 1280x720, so the file is the layout the page had, not a scaled copy of someone's surface: every
 * person viewing the tab is told and sees that layout fitted with bars, and the layout is put back
 * when the take ends. The file is answered as a link the agent reads with resources/read.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import type { ViewRecording } from '../../../shared/protocol.js';
import { WINDOW_MIN_VIEWPORT_WIDTH } from '../../../workers/cdp/windows.js';
import { log } from '../../logging.js';
import type { ProfileBrowser } from '../profile.js';
import type { Tab } from '../tabs.js';
import { header, onTab, type ToolDef, type ToolHost } from '../tools.js';
import { VIDEO_FPS_DEFAULT, VIDEO_FPS_MAX, VIDEO_HEIGHT, VIDEO_WIDTH, VideoTake } from './video-take.js';

/** Longest take, ms: a take nobody stops would hold every viewer's layout at 1280x720; past this it ends itself. */
export const VIDEO_TAKE_MAX_MS = 10 * 60_000;
/** How long a window resize may take to reach the page, ms. */
const LAYOUT_SETTLE_MS = 3_000;

interface Running { take: VideoTake; host: ToolHost; before?: { w: number; h: number }; timer: NodeJS.Timeout; ended?: string }

/** The takes running, by profile and seat: one a seat. */
const running = new WeakMap<ProfileBrowser, Map<string, Running>>();

function takesOf(p: ProfileBrowser): Map<string, Running> {
  let m = running.get(p);
  if (!m) { m = new Map(); running.set(p, m); }
  return m;
}

/** The seat's take running now, if any. */
export function runningTake(p: ProfileBrowser, seat: string): VideoTake | undefined {
  const r = takesOf(p).get(seat);
  return r && !r.ended && !r.take.ended ? r.take : undefined;
}

/** Whether a take runs on the tab: its layout is the take's until it ends. */
export function recordingTab(p: ProfileBrowser, tab: Tab): boolean {
  return [...takesOf(p).values()].some((r) => r.take.tab === tab && !r.take.ended);
}

/** Lays the unwatched tab's window out with a w x h viewport; answers the size it had. */
async function layOut(p: ProfileBrowser, tab: Tab, w: number, h: number): Promise<{ w: number; h: number }> {
  const driver = p.driver!;
  await driver.session(tab.page)?.send('Emulation.clearDeviceMetricsOverride').catch(() => undefined);
  const { windowId, bounds } = (await driver.cdp.send('Browser.getWindowForTarget', { targetId: tab.targetId })) as { windowId: number; bounds: { width: number; height: number } };
  const [iw, ih] = (await tab.page.evaluate('[innerWidth, innerHeight]')) as [number, number];
  const ww = Math.max(w, WINDOW_MIN_VIEWPORT_WIDTH);
  await driver.cdp.send('Browser.setWindowBounds', { windowId, bounds: { width: ww + (bounds.width - iw), height: h + (bounds.height - ih) } });
  await tab.page.waitForFunction(`innerWidth === ${ww} && innerHeight === ${h}`, undefined, { timeout: LAYOUT_SETTLE_MS }).catch(() => undefined);
  return { w: iw, h: ih };
}

function recordingNote(seat: string): ViewRecording {
  return {
    by: seat, width: VIDEO_WIDTH, height: VIDEO_HEIGHT,
    message: `${seat} is recording this tab: the page is laid out at the video's ${VIDEO_WIDTH}x${VIDEO_HEIGHT} until the recording ends`,
  };
}

/** Ends the take when its tab closes (a page forge replaces under the tab is not its close). */
function endWithTab(p: ProfileBrowser, seat: string, r: Running): void {
  const tab = r.take.tab;
  const page = tab.page;
  page.once('close', () => {
    if (r.ended || (tab.page !== page && p.tabs.get(tab.pageId) === tab)) return;
    void finish(p, r.host, seat, r, `tab ${tab.number} closed`).catch(() => undefined);
  });
}

/**
 * The tab's page was rebuilt (its renderer had crashed): every take of the tab goes on with the
 * new page, laid out at the file's size again when nobody views it (a viewer's layout follows
 * the recording by itself). A take that cannot follow ends, its frames kept, saying why.
 */
export async function followRebuilt(p: ProfileBrowser, tab: Tab, why: string): Promise<void> {
  for (const [seat, r] of takesOf(p)) {
    if (r.take.tab !== tab || r.ended || r.take.ended) continue;
    try {
      const watched = await r.host.recording?.(tab, recordingNote(seat)) ?? false;
      if (!watched) await layOut(p, tab, VIDEO_WIDTH, VIDEO_HEIGHT);
      await r.take.follow(await p.driver!.context.newCDPSession(tab.page), why);
      endWithTab(p, seat, r);
    } catch (e) {
      log.warn({ err: (e as Error).message, seat, tab: tab.pageId }, 'a video take could not follow its rebuilt tab');
      void finish(p, r.host, seat, r, `${why}, and the take could not go on with the reloaded page (${(e as Error).message.split('\n')[0]}); it holds the frames up to the crash`).catch(() => undefined);
    }
  }
}

/** Ends a take: the file is made, viewers are told, and the layout is put back (theirs, or the one it had). */
async function finish(p: ProfileBrowser, host: ToolHost, seat: string, r: Running, why?: string): Promise<Buffer> {
  clearTimeout(r.timer);
  r.ended ??= why ?? '';
  const file = await r.take.end();
  if (takesOf(p).get(seat) === r && why === undefined) takesOf(p).delete(seat);
  const tab = r.take.tab;
  const watched = await host.recording?.(tab, null).catch(() => true) ?? false;
  // A closed tab has no layout to put back, and a crashed or unloaded one no page to lay out.
  if (p.tabs.get(tab.pageId) !== tab || tab.crashed || tab.unloaded) return file;
  if (!watched && r.before && p.driver) await layOut(p, tab, r.before.w, r.before.h).catch(() => undefined);
  return file;
}

export const VIDEO_TOOLS: ToolDef[] = [
  {
    name: 'browser_start_video',
    cap: 'devtools',
    description: `Start recording your current tab as a ${VIDEO_WIDTH}x${VIDEO_HEIGHT} WebM video. Until browser_stop_video the page is laid out at ${VIDEO_WIDTH}x${VIDEO_HEIGHT}; a person viewing the tab is told and sees that layout fitted with bars.`,
    schema: z.object({
      filename: z.string().optional().describe('A name for the file, video-<time>.webm by default; nothing is saved on the server'),
      size: z.object({ width: z.number().describe('Video width'), height: z.number().describe('Video height') }).optional()
        .describe(`Video size: forge records at ${VIDEO_WIDTH}x${VIDEO_HEIGHT}, the layout the page has meanwhile`),
      fps: z.number().optional().describe(`Frames per second, ${VIDEO_FPS_DEFAULT} by default, at most ${VIDEO_FPS_MAX}`),
      cursor: z.boolean().optional().describe('Playwright MCP\'s animated cursor: not drawn by forge'),
    }).strict(),
    run: async (a, ctx, p, host) => {
      const seat = ctx.seat.key;
      const takes = takesOf(p);
      const was = takes.get(seat);
      if (was && !was.ended) throw new ForgeError('bad_request', `you are recording tab ${was.take.tab.number} (${was.take.tab.pageId}) already; browser_stop_video ends that take first`);
      const fps = Math.min(VIDEO_FPS_MAX, Math.max(1, Math.round((a.fps as number | undefined) ?? VIDEO_FPS_DEFAULT)));
      const name = (a.filename as string | undefined)?.replace(/^.*[\\/]/, '') || `video-${Date.now()}.webm`;
      const notes: string[] = [];
      const size = a.size as { width: number; height: number } | undefined;
      if (size && (size.width !== VIDEO_WIDTH || size.height !== VIDEO_HEIGHT)) notes.push(`Note: forge records at ${VIDEO_WIDTH}x${VIDEO_HEIGHT}, the page's layout during the take; the size asked (${size.width}x${size.height}) was not used.`);
      if (a.cursor) notes.push('Note: forge draws no cursor into the video.');
      return onTab(p, ctx, 'browser_start_video', 'starting a video', async (tab) => {
        const driver = p.driver!;
        let watched = false;
        let before: { w: number; h: number } | undefined;
        try {
          watched = await host.recording?.(tab, recordingNote(seat)) ?? false;
          if (!watched) before = await layOut(p, tab, VIDEO_WIDTH, VIDEO_HEIGHT);
          const take = new VideoTake(tab, seat, await driver.context.newCDPSession(tab.page), fps, name);
          await take.start();
          const r: Running = { take, host, before, timer: setTimeout(() => void finish(p, host, seat, r, `it ran ${VIDEO_TAKE_MAX_MS / 60_000} minutes, the longest a take may`).catch(() => undefined), VIDEO_TAKE_MAX_MS) };
          r.timer.unref();
          takes.set(seat, r);
          endWithTab(p, seat, r);
        } catch (e) {
          await host.recording?.(tab, null).catch(() => undefined);
          if (before) await layOut(p, tab, before.w, before.h).catch(() => undefined);
          throw e;
        }
        log.info({ seat, tab: tab.pageId, fps }, 'video take started');
        return [...notes, '### Result', `- Recording tab ${tab.number} (${tab.pageId}) at ${VIDEO_WIDTH}x${VIDEO_HEIGHT}, up to ${fps} frames a second, as ${name}. The page is laid out at ${VIDEO_WIDTH}x${VIDEO_HEIGHT} until browser_stop_video${watched ? '; the people viewing it were told' : ''}.`, header(tab)].join('\n');
      });
    },
  },
  {
    name: 'browser_stop_video',
    cap: 'devtools',
    description: 'Stop recording: the video is answered as a WebM file you read with resources/read (nothing is saved on the server), and the tab\'s layout is put back.',
    schema: z.object({}).strict(),
    run: async (_a, ctx, p, host) => {
      const seat = ctx.seat.key;
      const r = takesOf(p).get(seat);
      if (!r) return { text: 'No videos were recorded: you have no take running (browser_start_video starts one).' };
      takesOf(p).delete(seat);
      const file = await finish(p, host, seat, r);
      const { take } = r;
      const lines = ['### Result', `- Recorded tab ${take.tab.number} (${take.tab.pageId}): ${(take.durationMs / 1000).toFixed(1)} s, ${take.frameCount} frames at ${VIDEO_WIDTH}x${VIDEO_HEIGHT}, ${file.length} bytes of video/webm as ${take.name}, linked below (read it with resources/read)`];
      for (const e of take.events) lines.push(`- Note: ${e}`);
      if (r.ended) lines.push(`- The take ended before this call: ${r.ended}`);
      if (take.cut) lines.push(`- Note: ${take.cut}`);
      if (take.dropped) lines.push(`- Note: ${take.dropped} frames were dropped while the encoder was behind the page`);
      if (p.tabs.get(take.tab.pageId) === take.tab) lines.push(header(take.tab));
      return { text: lines.join('\n'), files: [{ name: take.name, mimeType: 'video/webm', data: file, description: `Video of tab ${take.tab.number}` }] };
    },
  },
];
