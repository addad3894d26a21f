/**
 * browser_take_screenshot: a picture of the seat's own tab (the viewport, the full page, or one
 * element), returned as MCP image content. Nothing is written to the server's disk: `filename`
 * only names the picture in the answer.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { PAGE_ACTION_TIMEOUT_MS } from '../../../shared/limits.js';
import { locate } from '../locate.js';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { BrowserAnswer, ToolDef } from './tool-def.js';
import { elementShape, targetOf } from './element.js';
import { SEAT_FILE_MAX_BYTES } from './seat-files.js';

/** Largest picture an answer carries inline, bytes: a bigger one is a file the agent reads by its link, as most clients take an image block of about this size at most. */
export const SCREENSHOT_INLINE_MAX_BYTES = 1024 * 1024;
/** Largest picture at all, bytes: what one of the session's files may be. */
export const SCREENSHOT_MAX_BYTES = SEAT_FILE_MAX_BYTES;
/** JPEG and WebP quality, 0–100: small enough for an agent's context, sharp enough to read text. */
const SCREENSHOT_QUALITY = 80;

type Kind = 'png' | 'jpeg' | 'webp';

function kindOf(a: Record<string, unknown>): Kind {
  if (a.type) return a.type as Kind;
  const ext = /\.(png|jpe?g|webp)$/i.exec(String(a.filename ?? ''))?.[1]?.toLowerCase();
  return ext === 'jpg' ? 'jpeg' : (ext as Kind | undefined) ?? 'png';
}

export const SCREENSHOT_TOOLS: ToolDef[] = [
  {
    name: 'browser_take_screenshot',
    description: 'Take a screenshot of your current tab (its viewport, the full page, or one element), answered as an image. Use browser_snapshot to find elements to act on.',
    schema: z.object({
      type: z.enum(['png', 'jpeg', 'webp']).optional().describe('Image format; png unless filename says otherwise'),
      element: elementShape.element,
      target: elementShape.target.optional().describe('Take only this element'),
      ref: elementShape.ref,
      fullPage: z.boolean().optional().describe('The whole scrollable page instead of the viewport; not with an element'),
      filename: z.string().optional().describe('A name for the picture, said in the answer; nothing is saved on the server'),
      scale: z.enum(['css', 'device']).optional().describe('css or device pixels: one and the same here, as forge lays pages out at a device scale of 1'),
    }).strict(),
    run: async (a, ctx, p) => {
      let image: Buffer | undefined;
      const kind = kindOf(a);
      const named = targetOf(a, { optional: true });
      if (named && a.fullPage) throw new ForgeError('bad_request', 'fullPage takes the whole page; an element screenshot takes one element: give one of them');
      const r = await onTab(p, ctx, 'browser_take_screenshot', 'taking a screenshot', async (tab) => {
        const loc = named ? await locate(tab, named) : undefined;
        // The viewport (and every webp) is one capture of the page's own compositor frame; the
        // driver's path readies the page first in several round trips (its size, a style sheet
        // in every frame, its fonts, its metrics, the sheet's removal), which a full page or an
        // element needs and a picture of what is on screen does not.
        if (kind === 'webp' || (!loc && !a.fullPage)) {
          const session = p.driver?.session(tab.page);
          if (!session) throw new ForgeError('tab_not_open', `tab ${tab.number} (${tab.pageId}) has no page to take a picture of`);
          let clip: { x: number; y: number; width: number; height: number; scale: number } | undefined;
          if (loc) {
            await loc.scrollIntoViewIfNeeded({ timeout: PAGE_ACTION_TIMEOUT_MS });
            const box = await loc.boundingBox({ timeout: PAGE_ACTION_TIMEOUT_MS });
            if (!box) throw new ForgeError('bad_request', `${named} is not visible on tab ${tab.number}; nothing to take a picture of`);
            const [sx, sy] = (await tab.page.evaluate('[scrollX, scrollY]')) as [number, number];
            clip = { x: box.x + sx, y: box.y + sy, width: box.width, height: box.height, scale: 1 };
          }
          const quality = kind === 'png' ? {} : { quality: SCREENSHOT_QUALITY };
          const shot = (await session.send('Page.captureScreenshot', { format: kind, ...quality, captureBeyondViewport: !!a.fullPage, ...(clip ? { clip } : {}) })) as { data: string };
          image = Buffer.from(shot.data, 'base64');
        } else {
          const opts = { type: kind, timeout: PAGE_ACTION_TIMEOUT_MS, ...(kind === 'jpeg' ? { quality: SCREENSHOT_QUALITY } : {}) };
          image = loc ? await loc.screenshot(opts) : await tab.page.screenshot({ ...opts, fullPage: !!a.fullPage });
        }
        if (image.length > SCREENSHOT_MAX_BYTES) {
          const mib = (image.length / 1024 / 1024).toFixed(1);
          image = undefined;
          throw new ForgeError('bad_request', `the screenshot of tab ${tab.number} is ${mib} MiB, over the ${SCREENSHOT_MAX_BYTES / 1024 / 1024} MiB a screenshot may be; take it as jpeg, without fullPage, or of one element`);
        }
        const of = named ? `element ${named}${a.element ? ` (${a.element as string})` : ''}` : a.fullPage ? 'the full page' : 'the viewport';
        const linked = image.length > SCREENSHOT_INLINE_MAX_BYTES ? `; over the ${SCREENSHOT_INLINE_MAX_BYTES / 1024 / 1024} MiB an answer carries inline, so it is linked below (read it with resources/read)` : '';
        return ['### Result', `- Screenshot of ${of} on tab ${tab.number} (${tab.pageId}) as image/${kind}, ${image.length} bytes${a.filename ? `, named ${a.filename as string} (not saved on the server)` : ''}${linked}`, header(tab)].join('\n');
      });
      const answer: BrowserAnswer = { ...r };
      // A dialog that opened meanwhile answers without the picture.
      if (image && r.text.includes('### Result')) {
        if (image.length <= SCREENSHOT_INLINE_MAX_BYTES) answer.images = [{ data: image.toString('base64'), mimeType: `image/${kind}` }];
        else answer.files = [{ name: (a.filename as string | undefined)?.replace(/^.*[\\/]/, '') || `screenshot-${Date.now()}.${kind === 'jpeg' ? 'jpg' : kind}`, mimeType: `image/${kind}`, data: image, description: 'Screenshot' }];
      }
      return answer;
    },
  },
];
