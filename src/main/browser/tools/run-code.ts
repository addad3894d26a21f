/**
 * browser_run_code_unsafe, offered only with [agent] allow_run_code = true: the agent's own
 * function runs in the server's process with the seat's tab's Playwright page. It can reach
 * anything the server can (every tab of the profile, the disk, the network), which is why it is
 * off unless the operator turns it on for agents they trust as they trust the server.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { EVALUATE_RESULT_MAX_CHARS } from '../../../shared/limits.js';
import { onTab } from './on-tab.js';
import { pageState } from './page-state.js';
import type { ToolDef } from './tool-def.js';

/** Longest the agent's code may run before the call answers, ms; the code itself is not stopped (it cannot be). */
const RUN_CODE_TIMEOUT_MS = 60_000;

export const RUN_CODE_TOOLS: ToolDef[] = [
  {
    name: 'browser_run_code_unsafe',
    runsCode: true,
    description: 'Run a Playwright function with your current tab\'s page, in the server\'s process: async (page) => { ... } and answer what it returns. Unsafe: the code can do anything the server can.',
    schema: z.object({
      code: z.string().optional().describe('A JavaScript function taking page, such as async (page) => { await page.getByRole(\'button\', { name: \'Submit\' }).click(); return await page.title(); }'),
      filename: z.string().optional().describe('Not read: forge does not open the server\'s files for an agent; pass code'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_run_code_unsafe', 'running your code', async (tab) => {
      if (a.code === undefined) {
        throw new ForgeError('bad_request', a.filename !== undefined
          ? `forge does not read the server's files for an agent, so ${a.filename as string} was not opened; pass the function as code`
          : 'give code: a function taking page, such as async (page) => page.title()');
      }
      let fn: unknown;
      try { fn = new Function(`return (${a.code as string})`)(); } catch (e) { throw new ForgeError('bad_request', `code does not parse as a function (${(e as Error).message})`); }
      if (typeof fn !== 'function') throw new ForgeError('bad_request', 'code must be a function taking page, such as async (page) => page.title()');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new ForgeError('timeout', `your code did not finish within ${RUN_CODE_TIMEOUT_MS / 1000} s; it may still be running in the server`)), RUN_CODE_TIMEOUT_MS); });
      const running = Promise.resolve().then(() => (fn as (page: unknown) => unknown)(tab.page));
      running.catch(() => undefined);
      let result: unknown;
      try {
        result = await Promise.race([running, late]);
      } catch (e) {
        if (e instanceof ForgeError) throw e;
        throw new ForgeError('bad_request', `your code threw: ${(e as Error)?.message?.split('\n')[0] ?? String(e)}`);
      } finally {
        clearTimeout(timer);
      }
      let text = result === undefined ? 'undefined' : JSON.stringify(result, null, 2) ?? String(result);
      if (text.length > EVALUATE_RESULT_MAX_CHARS) text = `${text.slice(0, EVALUATE_RESULT_MAX_CHARS)}… (cut at ${EVALUATE_RESULT_MAX_CHARS} characters)`;
      return `### Result\n${text}\n${await pageState(tab, true, p)}`;
    }),
  },
];
