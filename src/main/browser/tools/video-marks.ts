/**
 * The devtools group's marks on a video ([agent] caps = ["devtools"]): browser_video_chapter shows
 * a chapter card over the seat's tab and, while the seat records that tab, writes a chapter into
 * the file's Chapters at that moment; browser_video_show_actions / browser_video_hide_actions name
 * each later action on the page with a callout over its element. Both are painted in the page, so
 * a person viewing the tab sees them as the video does.
 */
import { z } from 'zod';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { ToolDef } from './tool-def.js';
import { runningTake } from './video-running.js';

/** How long a chapter card shows by default, ms (Playwright's own default). */
const CHAPTER_CARD_DEFAULT_MS = 2_000;
/** Longest a chapter card may show, ms: the call holds the tab while the card is up. */
export const CHAPTER_CARD_MAX_MS = 10_000;
/** Longest chapter title or description, characters: a card's words, not a page. */
const CHAPTER_TEXT_MAX_CHARS = 500;
/** Longest an action's callout may stay, ms: each action's callout overlaps the next past this. */
const ACTION_CALLOUT_MAX_MS = 10_000;
/** Longest style of one decoration, characters: a few CSS declarations, not a stylesheet. */
const ACTION_STYLE_MAX_CHARS = 2_000;

export const VIDEO_MARK_TOOLS: ToolDef[] = [
  {
    name: 'browser_video_chapter',
    cap: 'devtools',
    description: `Add a chapter marker to the video recording of your current tab (written into the WebM's chapters). Shows a full-screen chapter card with blurred backdrop for duration ms (${CHAPTER_CARD_DEFAULT_MS} by default, at most ${CHAPTER_CARD_MAX_MS}); the call answers when the card is gone.`,
    schema: z.object({
      title: z.string().min(1).max(CHAPTER_TEXT_MAX_CHARS).describe('Chapter title'),
      description: z.string().max(CHAPTER_TEXT_MAX_CHARS).optional().describe('Chapter description'),
      duration: z.number().min(0).optional().describe('Duration in milliseconds to show the chapter card'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_video_chapter', 'showing a chapter card', async (tab) => {
      const title = a.title as string;
      const description = (a.description as string | undefined) || undefined;
      const asked = (a.duration as number | undefined) ?? CHAPTER_CARD_DEFAULT_MS;
      const duration = Math.min(CHAPTER_CARD_MAX_MS, Math.round(asked));
      const take = runningTake(p, ctx.seat.key);
      const lines = ['### Result'];
      if (take?.tab === tab) {
        const atMs = take.elapsedMs();
        take.chapters.push({ title, description, atMs });
        lines.push(`- Chapter '${title}' added at ${(atMs / 1000).toFixed(2)} s of the recording ${take.name}`);
      } else {
        lines.push(`- Chapter card '${title}' shown; ${take ? `your recording is of tab ${take.tab.number}, not this one,` : 'no recording of yours runs (browser_start_video starts one),'} so no chapter was written into a video`);
      }
      if (asked > CHAPTER_CARD_MAX_MS) lines.push(`- Note: the card showed ${CHAPTER_CARD_MAX_MS} ms, the longest forge holds a tab for one`);
      await tab.page.screencast.showChapter(title, { description, duration });
      lines.push(header(tab));
      return lines.join('\n');
    }),
  },
  {
    name: 'browser_video_show_actions',
    cap: 'devtools',
    description: 'Annotate subsequent actions performed on your current tab with a callout that names the action and highlights the target element. Useful while video recording, and seen by the people viewing the tab.',
    schema: z.object({
      duration: z.number().min(0).max(ACTION_CALLOUT_MAX_MS).optional().describe('How long each action annotation stays on screen, in milliseconds. Defaults to 500.'),
      position: z.enum(['top-left', 'top', 'top-right', 'bottom-left', 'bottom', 'bottom-right']).optional().describe('Where to place the action title relative to the page. Defaults to top-right.'),
      cursor: z.enum(['none', 'pointer']).optional().describe('Cursor decoration for pointer actions: "pointer" (default) animates a mouse pointer from the previous action point to the next one; "none" disables it.'),
      style: z.object({
        point: z.string().max(ACTION_STYLE_MAX_CHARS).optional().describe('CSS declarations for the zero-sized marker centered on the action point, e.g. "width: 20px; height: 20px; border-radius: 50%; background: red". Not shown when omitted.'),
        highlight: z.string().max(ACTION_STYLE_MAX_CHARS).optional().describe('CSS declarations for the box that covers the target element, e.g. "outline: 2px solid #333". Not shown when omitted.'),
        title: z.string().max(ACTION_STYLE_MAX_CHARS).optional().describe('CSS declarations for the action title, e.g. "font-size: 16px".'),
      }).strict().optional().describe('Styles of the action decorations.'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_video_show_actions', 'showing actions', async (tab) => {
      await tab.page.screencast.showActions({
        duration: a.duration as number | undefined,
        position: a.position as 'top-right' | undefined,
        cursor: a.cursor as 'pointer' | undefined,
        style: a.style as { point?: string; highlight?: string; title?: string } | undefined,
      });
      return ['### Result', '- Action annotations enabled on this tab: each later click, type or other action is named over its element', header(tab)].join('\n');
    }),
  },
  {
    name: 'browser_video_hide_actions',
    cap: 'devtools',
    description: 'Stop annotating actions performed on your current tab.',
    schema: z.object({}).strict(),
    run: (_a, ctx, p) => onTab(p, ctx, 'browser_video_hide_actions', 'hiding actions', async (tab) => {
      await tab.page.screencast.hideActions();
      return ['### Result', '- Action annotations disabled on this tab', header(tab)].join('\n');
    }),
  },
];
