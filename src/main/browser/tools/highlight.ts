/**
 * The devtools group's highlights ([agent] caps = ["devtools"]): browser_highlight draws a box
 * around an element of the seat's tab that stays (following the element as it moves) until
 * browser_hide_highlight; browser_resume and browser_annotate, which need a paused test script and
 * Playwright's own dashboard, are refused in words. A highlight is painted in the page, so a person
 * viewing the tab sees it and the agent's screenshots show it; the page's snapshot does not list it.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { PAGE_ACTION_TIMEOUT_MS } from '../../../shared/limits.js';
import { locate } from '../locate.js';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { ToolDef } from './tool-def.js';
import { elementArgs, elementShape, targetOf } from './element.js';

/** The box drawn when no style is given: seen on light and dark pages alike. */
const HIGHLIGHT_STYLE_DEFAULT = 'outline: 3px solid rgb(255, 0, 170); background: rgba(255, 0, 170, 0.15)';
/** Longest style accepted, characters: a few CSS declarations, not a stylesheet. */
const HIGHLIGHT_STYLE_MAX_CHARS = 2_000;

export const HIGHLIGHT_TOOLS: ToolDef[] = [
  {
    name: 'browser_highlight',
    cap: 'devtools',
    description: 'Show a persistent highlight overlay around an element of your current tab, until browser_hide_highlight. People viewing the tab see it, and screenshots show it.',
    schema: z.object({
      ...elementArgs,
      style: z.string().max(HIGHLIGHT_STYLE_MAX_CHARS).optional().describe('Additional inline CSS applied to the highlight overlay, e.g. "outline: 2px dashed red"'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_highlight', 'highlighting', async (tab) => {
      const named = targetOf(a);
      const loc = await locate(tab, named);
      // The element must be there now: a highlight of nothing would answer as if it were drawn.
      await loc.waitFor({ state: 'attached', timeout: PAGE_ACTION_TIMEOUT_MS });
      const style = (a.style as string | undefined)?.trim();
      await loc.highlight({ style: style ? `${HIGHLIGHT_STYLE_DEFAULT}; ${style}` : HIGHLIGHT_STYLE_DEFAULT });
      return ['### Result', `- Highlighted ${(a.element as string | undefined) ?? named} (${named}); browser_hide_highlight removes it`, header(tab)].join('\n');
    }),
  },
  {
    name: 'browser_hide_highlight',
    cap: 'devtools',
    description: 'Remove a highlight overlay added by browser_highlight: the one of the element named, or every highlight of your current tab when none is named.',
    schema: z.object({
      element: z.string().optional().describe('Human-readable element description used when adding the highlight'),
      target: elementShape.target.optional(),
      ref: elementShape.ref,
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_hide_highlight', 'hiding a highlight', async (tab) => {
      const named = targetOf(a, { optional: true });
      if (!named) {
        await tab.page.hideHighlight();
        return ['### Result', '- Hid every highlight of the page', header(tab)].join('\n');
      }
      await (await locate(tab, named)).hideHighlight();
      return ['### Result', `- Hid the highlight of ${named}`, header(tab)].join('\n');
    }),
  },
  {
    name: 'browser_resume',
    cap: 'devtools',
    description: 'Playwright MCP\'s resume of a paused test script: forge runs no test scripts, so nothing is ever paused; refused in words.',
    schema: z.object({
      step: z.boolean().optional().describe('Pause again before the next action (not available: forge pauses no script)'),
      location: z.string().optional().describe('Pause at a <file>:<line> (not available: forge pauses no script)'),
    }).strict(),
    run: async () => {
      throw new ForgeError('bad_request', 'nothing is paused: browser_resume continues a Playwright test script stopped at a breakpoint, and forge runs no test scripts; your tab runs as it is');
    },
  },
  {
    name: 'browser_annotate',
    cap: 'devtools',
    description: 'Playwright MCP\'s annotation of the page in its own dashboard: forge\'s viewers have no drawing mode yet, so this is refused in words (browser_take_screenshot and browser_snapshot read the page).',
    schema: z.object({}).strict(),
    run: async () => {
      throw new ForgeError('bad_request', 'annotation is not available: Playwright MCP opens its own dashboard on the machine it runs on for a person to draw on, and forge\'s viewers have no drawing mode; ask the person in words, or use browser_take_screenshot and browser_highlight to show them what you mean');
    },
  },
];
