/**
 * The video takes running, one a seat of each profile: a take's layout while it runs, its end
 * (the file made, the layout put back), and a take going on with its tab's page when forge
 * rebuilds the page after a crash.
 */
import type { ViewRecording } from '../../../shared/protocol.js';
import { log } from '../../logging.js';
import type { ProfileBrowser } from '../profile.js';
import type { Tab } from '../tabs.js';
import type { ToolHost } from './tool-def.js';
import { layOut } from './lay-out.js';
import { VIDEO_HEIGHT, VIDEO_WIDTH, type VideoTake } from './video-take.js';

/** A running take: the host that lays out its viewers, the layout it found on an unwatched tab, the timer that ends it, and why it ended. */
export interface Running { take: VideoTake; host: ToolHost; before?: { w: number; h: number }; timer: NodeJS.Timeout; ended?: string }

/** The takes running, by profile and seat: one a seat. */
const running = new WeakMap<ProfileBrowser, Map<string, Running>>();

export function takesOf(p: ProfileBrowser): Map<string, Running> {
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

export function recordingNote(seat: string): ViewRecording {
  return {
    by: seat, width: VIDEO_WIDTH, height: VIDEO_HEIGHT,
    message: `${seat} is recording this tab: the page is laid out at the video's ${VIDEO_WIDTH}x${VIDEO_HEIGHT} until the recording ends`,
  };
}

/** Ends the take when its tab closes (a page forge replaces under the tab is not its close). */
export function endWithTab(p: ProfileBrowser, seat: string, r: Running): void {
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
export async function finish(p: ProfileBrowser, host: ToolHost, seat: string, r: Running, why?: string): Promise<Buffer> {
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
