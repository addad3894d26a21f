/**
 * browser_resize: the agent lays its tab out at a size, but only while no person watches it:
 * a watched tab's layout is the viewer's (the controller's surface, else the longest watcher's).
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { onTab } from './on-tab.js';
import { pageState } from './page-state.js';
import type { ToolDef } from './tool-def.js';
import { WINDOW_MIN_VIEWPORT_WIDTH } from '../../../workers/cdp/windows.js';
import { LAYOUT_MIN_HEIGHT, LAYOUT_MIN_WIDTH, SURFACE_MAX_PX } from '../viewing/layout.js';
import { recordingTab } from './video-running.js';
import { layOut } from './lay-out.js';

export const RESIZE_TOOLS: ToolDef[] = [
  {
    name: 'browser_resize',
    description: 'Lay your current tab out at width x height CSS px. Refused while a person is viewing the tab: its layout is theirs then.',
    schema: z.object({
      width: z.number().int().describe('Viewport width, CSS px'),
      height: z.number().int().describe('Viewport height, CSS px'),
    }).strict(),
    run: (a, ctx, p, host) => onTab(p, ctx, 'browser_resize', 'resizing', async (tab) => {
      const w = a.width as number;
      const h = a.height as number;
      if (w < LAYOUT_MIN_WIDTH || h < LAYOUT_MIN_HEIGHT || w > SURFACE_MAX_PX || h > SURFACE_MAX_PX) {
        throw new ForgeError('bad_request', `a layout is ${LAYOUT_MIN_WIDTH}x${LAYOUT_MIN_HEIGHT} to ${SURFACE_MAX_PX}x${SURFACE_MAX_PX} CSS px, not ${w}x${h}`);
      }
      if (recordingTab(p, tab)) {
        throw new ForgeError('bad_request', `tab ${tab.number} (${tab.pageId}) is being recorded, so it is laid out at the video's size until browser_stop_video`);
      }
      if (host.watched?.(tab)) {
        throw new ForgeError('bad_request', `a person is viewing tab ${tab.number} (${tab.pageId}), so its layout follows their screen; browser_resize works while nobody views the tab`);
      }
      const { now } = await layOut(p, tab, w, h);
      const [nw, nh] = [now.w, now.h];
      const why = w < WINDOW_MIN_VIEWPORT_WIDTH ? `; the browser's narrowest window is ${WINDOW_MIN_VIEWPORT_WIDTH} px` : '';
      return [`### Result`, `- Tab ${tab.number} is laid out at ${nw}x${nh}${nw !== w || nh !== h ? ` (asked ${w}x${h}${why})` : ''}`, await pageState(tab, false)].join('\n');
    }),
  },
];
