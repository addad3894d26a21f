/**
 * The devtools group's video ([agent] caps = ["devtools"]): browser_start_video / browser_stop_video
 * record the seat's current tab as a WebM. While a take runs the page is laid out at the file's own
 * 1280x720, so the file is the layout the page had, not a scaled copy of someone's surface: every
 * person viewing the tab is told and sees that layout fitted with bars, and the layout is put back
 * when the take ends. The file is answered as a link the agent reads with resources/read.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { log } from '../../logging.js';
import { onTab } from './on-tab.js';
import { header } from './page-state.js';
import type { ToolDef } from './tool-def.js';
import { VIDEO_FPS_DEFAULT, VIDEO_FPS_MAX, VIDEO_HEIGHT, VIDEO_WIDTH, VideoTake } from './video-take.js';
import { endWithTab, finish, recordingNote, takesOf, type Running } from './video-running.js';
import { layOut } from './lay-out.js';

/** Longest take, ms: a take nobody stops would hold every viewer's layout at 1280x720; past this it ends itself. */
export const VIDEO_TAKE_MAX_MS = 10 * 60_000;

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
          if (!watched) before = (await layOut(p, tab, VIDEO_WIDTH, VIDEO_HEIGHT)).was;
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
