/** browser_console_messages: what the seat's tab logged and threw, from its bounded buffer. */
import { z } from 'zod';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { ToolDef } from './tool-def.js';
import { answerOrFile, filenameArg } from './to-file.js';
import { consoleLine, recordsOf, CONSOLE_MESSAGES_PER_TAB_MAX, type ConsoleLevel } from '../page-records.js';

const LEVELS: ConsoleLevel[] = ['error', 'warning', 'info', 'debug'];

export const CONSOLE_TOOLS: ToolDef[] = [
  {
    name: 'browser_console_messages',
    description: 'The console messages and uncaught errors of your current tab since its last navigation (all: since the tab opened).',
    schema: z.object({
      level: z.enum(['error', 'warning', 'info', 'debug']).optional().describe('The least severe level to answer; each level includes the more severe ones. info by default'),
      all: z.boolean().optional().describe('Every kept message since the tab opened, not only since the last navigation'),
      filename: filenameArg,
    }).strict(),
    run: (a, ctx, p) => answerOrFile(a.filename, (keep) => onTab(p, ctx, 'browser_console_messages', 'reading the console', async (tab) => {
      const r = recordsOf(tab);
      const upTo = LEVELS.indexOf((a.level as ConsoleLevel | undefined) ?? 'info');
      const scope = a.all ? r.console : r.console.filter((m) => m.page === r.page);
      const shown = scope.filter((m) => LEVELS.indexOf(m.level) <= upTo);
      const errors = scope.filter((m) => m.level === 'error').length;
      const warnings = scope.filter((m) => m.level === 'warning').length;
      const lines = ['### Result', `${scope.length} message${scope.length === 1 ? '' : 's'} ${a.all ? 'since the tab opened' : 'since the last navigation'} (errors: ${errors}, warnings: ${warnings}); ${shown.length} at level ${LEVELS[upTo]} or more severe${shown.length ? ':' : '.'}`];
      for (const m of shown) lines.push(consoleLine(m));
      if (a.all && r.consoleDropped) lines.push(`(${r.consoleDropped} older message${r.consoleDropped === 1 ? ' was' : 's were'} dropped: a tab keeps its last ${CONSOLE_MESSAGES_PER_TAB_MAX})`);
      lines.push(header(tab));
      return keep(tab, 'Console messages', lines.join('\n'));
    })),
  },
];
