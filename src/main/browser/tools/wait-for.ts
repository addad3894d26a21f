/**
 * browser_wait_for: a time, text appearing, or text going, on the seat's own tab; bounded,
 * and refused by name when a dialog opens on the tab meanwhile.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { onTab } from './on-tab.js';
import { pageState } from './page-state.js';
import type { ToolDef } from './tool-def.js';

/** Longest wait one call may ask for, s: past it the agent asks again, so a call never hangs. */
export const WAIT_FOR_MAX_S = 30;

export const WAIT_FOR_TOOLS: ToolDef[] = [
  {
    name: 'browser_wait_for',
    description: `Wait on your current tab for text to appear, for text to disappear, or for a time to pass (at most ${WAIT_FOR_MAX_S} s).`,
    schema: z.object({
      time: z.number().min(0).optional().describe(`Seconds to wait, at most ${WAIT_FOR_MAX_S}; with text or textGone, the longest to wait for it (else ${WAIT_FOR_MAX_S})`),
      text: z.string().optional().describe('Text to wait for'),
      textGone: z.string().optional().describe('Text to wait to disappear'),
    }).strict(),
    run: (a, ctx, p) => {
      const time = a.time as number | undefined;
      const text = a.text as string | undefined;
      const gone = a.textGone as string | undefined;
      if (time === undefined && !text && !gone) throw new ForgeError('bad_request', 'browser_wait_for needs time (seconds), text or textGone');
      if (time !== undefined && time > WAIT_FOR_MAX_S) throw new ForgeError('bad_request', `browser_wait_for waits at most ${WAIT_FOR_MAX_S} s, not ${time}; wait in parts`);
      const what = text ? `waiting for ${JSON.stringify(text)}` : gone ? `waiting for ${JSON.stringify(gone)} to go` : `waiting ${time} s`;
      return onTab(p, ctx, 'browser_wait_for', what, async (tab) => {
        const t0 = Date.now();
        const bound = (time ?? WAIT_FOR_MAX_S) * 1000;
        const said: string[] = [];
        if (!text && !gone) await new Promise((r) => setTimeout(r, bound));
        const wait = async (needle: string, state: 'visible' | 'hidden'): Promise<void> => {
          const left = Math.max(1, bound - (Date.now() - t0));
          try {
            await tab.page.getByText(needle).first().waitFor({ state, timeout: left });
          } catch (e) {
            if ((e as Error)?.name !== 'TimeoutError') throw e;
            throw new ForgeError('timeout', `${JSON.stringify(needle)} ${state === 'visible' ? 'did not appear' : 'was still there'} on tab ${tab.number} (${tab.pageId}) after ${Math.round(left / 100) / 10} s`);
          }
          said.push(state === 'visible' ? `- ${JSON.stringify(needle)} appeared` : `- ${JSON.stringify(needle)} is gone`);
        };
        if (gone) await wait(gone, 'hidden');
        if (text) await wait(text, 'visible');
        if (!said.length) said.push(`- Waited ${time} s`);
        return ['### Result', ...said, await pageState(tab, true, p)].join('\n');
      }, { dialogRefuses: true });
    },
  },
];
