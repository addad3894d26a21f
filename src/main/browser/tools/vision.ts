/**
 * The vision group ([agent] caps = ["vision"]): the mouse by coordinates, in the CSS pixels of the
 * seat's tab's viewport as its screenshot shows them, for pages a snapshot does not describe (a
 * canvas, a map). Each runs on the seat's own tab like every page call, and a click or drag
 * answers with what it started.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { onTab } from './on-tab.js';
import { pageState } from './page-state.js';
import type { ToolDef } from './tool-def.js';
import type { Tab } from '../tabs.js';
import { actionAnswer } from './pointer.js';

/** Mouse moves between a drag's ends: enough for a page's pointermove handlers to follow the path. */
const DRAG_STEPS = 10;
/** Longest a click may hold its button, ms: a long press, not a call that sits on the tab. */
const CLICK_DELAY_MAX_MS = 5_000;

/** What the point is, in words (Playwright MCP's `element`): said in the log, not read. */
const element = z.string().optional().describe('Human-readable description of what is at the point');
const button = z.enum(['left', 'right', 'middle']).optional().describe('The button, left by default');

/** Refuses a point outside the viewport in words: the browser would drop such an event silently. */
async function inViewport(tab: Tab, points: Array<[number, number]>): Promise<void> {
  const [w, h] = (await tab.page.evaluate('[innerWidth, innerHeight]')) as [number, number];
  for (const [x, y] of points) {
    if (x < 0 || y < 0 || x >= w || y >= h) {
      throw new ForgeError('bad_request', `(${x}, ${y}) is outside tab ${tab.number}'s viewport, which is ${w}x${h} CSS px; coordinates count from its top left, as its screenshot shows`);
    }
  }
}

export const VISION_TOOLS: ToolDef[] = [
  {
    name: 'browser_mouse_move_xy',
    cap: 'vision',
    description: 'Move the mouse to a point of your current tab, in CSS pixels of its viewport (as browser_take_screenshot shows it).',
    schema: z.object({ element, x: z.number().describe('X coordinate, CSS px from the viewport\'s left'), y: z.number().describe('Y coordinate, CSS px from the viewport\'s top') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_mouse_move_xy', 'moving the mouse', async (tab) => {
      const x = a.x as number, y = a.y as number;
      await inViewport(tab, [[x, y]]);
      return actionAnswer(p, tab, 'mouse move', () => tab.page.mouse.move(x, y));
    }),
  },
  {
    name: 'browser_mouse_click_xy',
    cap: 'vision',
    description: 'Click at a point of your current tab, in CSS pixels of its viewport (as browser_take_screenshot shows it).',
    schema: z.object({
      element,
      x: z.number().describe('X coordinate, CSS px from the viewport\'s left'),
      y: z.number().describe('Y coordinate, CSS px from the viewport\'s top'),
      button,
      clickCount: z.number().int().min(1).max(3).optional().describe('Number of clicks, 1 by default'),
      delay: z.number().min(0).max(CLICK_DELAY_MAX_MS).optional().describe('Time between mouse down and up, ms; 0 by default'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_mouse_click_xy', 'clicking', async (tab) => {
      const x = a.x as number, y = a.y as number;
      await inViewport(tab, [[x, y]]);
      const opts = { button: a.button as 'left' | undefined, clickCount: a.clickCount as number | undefined, delay: a.delay as number | undefined };
      return actionAnswer(p, tab, 'click', () => tab.page.mouse.click(x, y, opts));
    }),
  },
  {
    name: 'browser_mouse_drag_xy',
    cap: 'vision',
    description: 'Drag with the left button from one point of your current tab to another, in CSS pixels of its viewport.',
    schema: z.object({
      element,
      startX: z.number().describe('Start X coordinate'), startY: z.number().describe('Start Y coordinate'),
      endX: z.number().describe('End X coordinate'), endY: z.number().describe('End Y coordinate'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_mouse_drag_xy', 'dragging', async (tab) => {
      const from: [number, number] = [a.startX as number, a.startY as number];
      const to: [number, number] = [a.endX as number, a.endY as number];
      await inViewport(tab, [from, to]);
      return actionAnswer(p, tab, 'drag', async () => {
        const m = tab.page.mouse;
        await m.move(...from);
        await m.down();
        await m.move(...to, { steps: DRAG_STEPS });
        await m.up();
      });
    }),
  },
  {
    name: 'browser_mouse_down',
    cap: 'vision',
    description: 'Press a mouse button where the mouse is on your current tab (browser_mouse_move_xy puts it there).',
    schema: z.object({ button }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_mouse_down', 'pressing the mouse', async (tab) => {
      await tab.page.mouse.down({ button: a.button as 'left' | undefined });
      return pageState(tab, true, p);
    }),
  },
  {
    name: 'browser_mouse_up',
    cap: 'vision',
    description: 'Release a mouse button where the mouse is on your current tab.',
    schema: z.object({ button }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_mouse_up', 'releasing the mouse', async (tab) => {
      return actionAnswer(p, tab, 'mouse release', () => tab.page.mouse.up({ button: a.button as 'left' | undefined }));
    }),
  },
  {
    name: 'browser_mouse_wheel',
    cap: 'vision',
    description: 'Turn the mouse wheel where the mouse is on your current tab (scrolls what is under it).',
    schema: z.object({ deltaX: z.number().optional().describe('Horizontal scroll, CSS px; 0 by default'), deltaY: z.number().optional().describe('Vertical scroll, CSS px; 0 by default') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_mouse_wheel', 'scrolling', async (tab) => {
      await tab.page.mouse.wheel((a.deltaX as number | undefined) ?? 0, (a.deltaY as number | undefined) ?? 0);
      return pageState(tab, true, p);
    }),
  },
];
