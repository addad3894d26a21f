/**
 * Pointer tools: click, hover and drag, each naming its elements by target or ref, each
 * answering with what the action started (a navigation, a dialog, a file chooser, a popup).
 */
import { z } from 'zod';
import { PAGE_ACTION_TIMEOUT_MS } from '../../../shared/limits.js';
import { locate } from '../locate.js';
import { onTab } from './on-tab.js';
import { pageState } from './page-state.js';
import type { ToolDef } from './tool-def.js';
import { elementArgs, prefixedElementArgs, targetOf } from './element.js';
import { watchAction } from './action-watch.js';
import type { ProfileBrowser } from '../profile.js';

type Modifier = 'Alt' | 'Control' | 'ControlOrMeta' | 'Meta' | 'Shift';

/** The answer after an action: what it started, then the page as it stands. */
export async function actionAnswer(p: ProfileBrowser, tab: Parameters<typeof pageState>[0], verb: string, act: () => Promise<void>): Promise<string> {
  const { said } = await watchAction(tab, verb, act);
  return [...(said.length ? ['### Result', ...said] : []), await pageState(tab, true, p)].join('\n');
}

export const POINTER_TOOLS: ToolDef[] = [
  {
    name: 'browser_click',
    description: 'Click an element of your current tab (target: a ref from browser_snapshot or a unique selector).',
    schema: z.object({
      ...elementArgs,
      doubleClick: z.boolean().optional().describe('Double-click instead of a single click'),
      button: z.enum(['left', 'right', 'middle']).optional().describe('The button, left by default'),
      modifiers: z.array(z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'])).optional().describe('Modifier keys held during the click'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_click', 'clicking', async (tab) => {
      const loc = await locate(tab, targetOf(a));
      const opts = { timeout: PAGE_ACTION_TIMEOUT_MS, button: a.button as 'left' | undefined, modifiers: a.modifiers as Modifier[] | undefined };
      return actionAnswer(p, tab, 'click', () => (a.doubleClick ? loc.dblclick(opts) : loc.click(opts)));
    }),
  },
  {
    name: 'browser_hover',
    description: 'Move the mouse over an element of your current tab.',
    schema: z.object({ ...elementArgs }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_hover', 'hovering', async (tab) => {
      const loc = await locate(tab, targetOf(a));
      return actionAnswer(p, tab, 'hover', () => loc.hover({ timeout: PAGE_ACTION_TIMEOUT_MS }));
    }),
  },
  {
    name: 'browser_drag',
    description: 'Drag one element of your current tab and drop it on another.',
    schema: z.object({ ...prefixedElementArgs('start'), ...prefixedElementArgs('end') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_drag', 'dragging', async (tab) => {
      const from = await locate(tab, targetOf(a, { prefix: 'start' }));
      const to = await locate(tab, targetOf(a, { prefix: 'end' }));
      return actionAnswer(p, tab, 'drag', () => from.dragTo(to, { timeout: PAGE_ACTION_TIMEOUT_MS }));
    }),
  },
];
