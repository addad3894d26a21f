/**
 * The agent's browser tools over MCP. Names and arguments follow Playwright MCP where the spec is
 * silent; every call drives only the calling seat's own tabs.
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ForgeError, isForgeError } from '../../shared/errors.js';
import { EVALUATE_RESULT_MAX_CHARS, EVALUATE_TIMEOUT_MS, PAGE_ACTION_TIMEOUT_MS } from '../../shared/limits.js';
import type { SessionContext, ToolAnswer } from '../mcp/context.js';
import { isLead } from '../seat.js';
import { inForgeWords } from './driver-errors.js';
import { locate } from './locate.js';
import type { ProfileBrowser } from './profile.js';
import { aDialog, type Tab } from './tabs.js';
import { elementShape, targetOf } from './tools/element.js';
import { MODULE_TOOLS } from './tools/registry.js';
import { loadUrl } from './tools/navigation.js';
import { takeDownloads, takeEvents } from './agent-events.js';
import { readFile } from 'node:fs/promises';
import { refuseUrl } from './url-policy.js';
import type { AgentCap } from './tools/caps.js';
import { SeatFiles, mimeOf, type FileLink } from './tools/seat-files.js';
import { onTab } from './tools/on-tab.js';
import { pageState, shownUrl } from './tools/page-state.js';
import { actionAnswer } from './tools/pointer.js';
import type { ToolDef, ToolHost } from './tools/tool-def.js';
import { answerDialog } from './tools/dialog-answer.js';
import { answerOrFile, filenameArg } from './tools/to-file.js';

const element = elementShape.element;

/** An evaluate's answer, or past EVALUATE_TIMEOUT_MS the page's silence in words: the page was asked and did not answer, the host is fine. */
async function withinEvaluateBound(tab: Tab, evaluation: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ForgeError('timeout', `the page in tab ${tab.number} (${tab.pageId}) did not answer the evaluate within ${EVALUATE_TIMEOUT_MS / 1000} s; the page still runs (a promise it never settles goes on waiting there)`)), EVALUATE_TIMEOUT_MS);
  });
  evaluation.catch(() => undefined); // an evaluate the bound overtook may still fail later
  try {
    return await Promise.race([evaluation, silence]);
  } finally {
    clearTimeout(timer);
  }
}

function looksLikeFunction(src: string): boolean {
  return /^\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/.test(src);
}

const TOOLS: ToolDef[] = [
  {
    name: 'browser_press_key',
    description: 'Press a key in your current tab, such as ArrowLeft, Enter, Escape or a character.',
    schema: z.object({ key: z.string() }).strict(),
    // Answered as a click is: Enter submits a form, a shortcut's handler navigates or raises a dialog.
    run: (a, ctx, p) => onTab(p, ctx, 'browser_press_key', 'pressing a key', (tab) => actionAnswer(p, tab, 'key press', () => tab.page.keyboard.press(a.key as string))),
  },
  {
    name: 'browser_evaluate',
    description: 'Evaluate a JavaScript function on your current tab, or on one element of it: () => { /* code */ } or (element) => { /* code */ }.',
    schema: z.object({ function: z.string(), element, target: elementShape.target.optional(), ref: elementShape.ref, filename: filenameArg }).strict(),
    run: (a, ctx, p) => answerOrFile(a.filename, (keep) => onTab(p, ctx, 'browser_evaluate', 'evaluating', async (tab) => {
      const src = a.function as string;
      let evaluation: Promise<unknown>;
      const named = targetOf(a, { optional: true });
      if (named) {
        const loc = await locate(tab, named);
        evaluation = loc.evaluate(new Function('element', `return (${src})(element)`) as (el: unknown) => unknown, undefined, { timeout: PAGE_ACTION_TIMEOUT_MS });
      } else {
        evaluation = looksLikeFunction(src) ? tab.page.evaluate(new Function(`return (${src})()`) as () => unknown) : tab.page.evaluate(src);
      }
      const result = await withinEvaluateBound(tab, evaluation);
      let text = result === undefined ? 'undefined' : JSON.stringify(result, null, 2) ?? String(result);
      // A file holds the whole result (up to a session file's size); an answer is cut.
      if (a.filename !== undefined) return keep(tab, 'Result', text);
      if (text.length > EVALUATE_RESULT_MAX_CHARS) text = `${text.slice(0, EVALUATE_RESULT_MAX_CHARS)}… (cut at ${EVALUATE_RESULT_MAX_CHARS} characters)`;
      return `### Result\n${text}\n${await pageState(tab, false)}`;
    })),
  },
  {
    name: 'browser_tabs',
    description: 'List, open, select or close your tabs. list shows every tab of the profile: yours in full, other seats\' by owner only. Tabs are named by their number (index) or page id.',
    schema: z.object({ action: z.enum(['list', 'new', 'select', 'close']), index: z.number().int().optional().describe('The tab number as the list prints it'), page_id: z.string().optional(), url: z.string().optional().describe('For new: the address to open') }).strict(),
    run: (a, ctx, p) => tabsTool(a, ctx, p),
  },
  {
    name: 'browser_handle_dialog',
    description: 'Answer the dialog (alert, confirm, prompt, beforeunload) holding one of your tabs.',
    schema: z.object({ accept: z.boolean(), promptText: z.string().optional() }).strict(),
    run: async (a, ctx, p) => {
      const seat = ctx.seat.key;
      const cur = p.tabs.currentOf(seat);
      const tab = cur?.dialog ? cur : p.tabs.ownedBy(seat).find((t) => t.dialog);
      if (!tab) throw new ForgeError('no_dialog', 'no dialog is waiting on your tabs');
      return onTab(p, ctx, 'browser_handle_dialog', 'answering its dialog', () => answerDialog(p, tab, a.accept as boolean, a.promptText as string | undefined), { allowDialog: true });
    },
  },
  {
    name: 'browser_close',
    description: 'Close your current tab (a dialog holding it goes with it).',
    schema: z.object({}).strict(),
    run: async (_a, ctx, p) => {
      const tab = p.tabs.currentOf(ctx.seat.key) ?? p.tabs.ownedBy(ctx.seat.key)[0];
      if (!tab) return { text: 'You have no tab open; nothing was closed.' };
      await p.closeTab(tab);
      return { text: `Closed tab ${tab.number} (${tab.pageId}). ${p.tabs.describeFor(ctx.seat.key)}.` };
    },
  },
  {
    name: 'browser_end_host',
    description: 'End this profile\'s browser host, every tab on it included (cookies and logins stay). Only the project lead (the seat labelled lead) may.',
    schema: z.object({}).strict(),
    run: async (_a, ctx, p) => {
      const others = [...new Set(p.tabs.all().map((t) => t.owner).filter((o): o is string => !!o && o !== ctx.seat.key))];
      if (!isLead(ctx.seat)) {
        const held = others.length ? `; ${others.join(', ')} ${others.length === 1 ? 'has a page' : 'have pages'} open on it` : '';
        throw new ForgeError('not_lead', `browser_end_host is the project lead's (the seat labelled lead), not ${ctx.seat.key}'s${held}`);
      }
      if (!p.host) return { text: `No browser host runs for ${p.key}; nothing was ended.` };
      const pid = p.host.pid;
      await p.end(`ended by ${ctx.seat.key}`, { except: ctx.seat.key });
      return { text: `Ended the browser host for ${p.key} (pid ${pid})${others.length ? `; the tabs of ${others.join(', ')} ended with it` : ''}. Cookies and logins stay; the next call starts a fresh host.` };
    },
  },
];

async function tabsTool(a: Record<string, unknown>, ctx: SessionContext, p: ProfileBrowser): Promise<ToolAnswer> {
  const seat = ctx.seat.key;
  const pick = (): { number?: number; pageId?: string } => {
    if (a.page_id !== undefined) return { pageId: a.page_id as string };
    if (a.index !== undefined) return { number: a.index as number };
    throw new ForgeError('bad_request', `browser_tabs ${a.action as string} needs index (the tab number) or page_id`);
  };
  switch (a.action) {
    case 'list': {
      if (!p.host?.alive) return { text: `### Tabs\nNo browser host runs for ${p.key}; your first page call starts one.` };
      return { text: listTabs(p, seat) };
    }
    case 'new':
      return onTab(p, ctx, 'browser_tabs', 'opening a tab', async () => {
        if (a.url) refuseUrl(a.url as string, p.urlPolicy());
        const { driver } = await p.ensure();
        const tab = await p.openTab(seat, driver);
        if (a.url) await loadUrl(tab, a.url as string).catch((e) => { throw inForgeWords(e, tab, 'loading the address'); });
        return `Opened tab ${tab.number} (${tab.pageId}), now your current tab.\n${listTabs(p, seat)}`;
      }, { allowDialog: true, allowChooser: true, leavesPage: true });
    case 'select': {
      await p.ensure();
      const tab = p.tabs.resolveOwn(seat, pick());
      p.tabs.setCurrent(seat, tab);
      const warn = tab.dialog ? `\nNote: ${aDialog(tab.dialog.kind)} dialog holds it: ${JSON.stringify(tab.dialog.message)}; answer it with browser_handle_dialog.`
        : tab.fileChooser ? '\nNote: a file chooser holds it; answer it with browser_file_upload (files or paths, or neither to cancel).' : '';
      return { text: `Tab ${tab.number} (${tab.pageId}) is your current tab.${warn}\n${listTabs(p, seat)}` };
    }
    case 'close': {
      await p.ensure();
      const tab = a.index === undefined && a.page_id === undefined ? p.tabs.currentOf(seat) : p.tabs.resolveOwn(seat, pick());
      if (!tab) return { text: 'You have no tab open; nothing was closed.' };
      await p.closeTab(tab);
      return { text: `Closed tab ${tab.number} (${tab.pageId}).\n${listTabs(p, seat)}` };
    }
  }
  throw new ForgeError('bad_request', `browser_tabs has no action ${String(a.action)}`);
}

function listTabs(p: ProfileBrowser, seat: string): string {
  const cur = p.tabs.currentOf(seat);
  const lines = ['### Tabs'];
  for (const t of p.tabs.all()) {
    const row = p.tabs.row(t, p.seatInUse);
    const dialog = (row.dialog ? ` · ${row.dialog.kind} waiting` : '') + (t.fileChooser && t.owner === seat ? ' · file chooser waiting' : '') + (t.unloaded ? ' · unloaded (to save memory; its next call reloads it)' : '');
    if (t.owner === seat) {
      // A page with no title yet is titled with its address by Chromium: said once, not twice.
      const title = row.title && row.title !== row.url ? row.title : '(no title)';
      lines.push(`- ${t.number}:${t === cur ? ' (current)' : ''} ${title} · ${shownUrl(row.url) || 'about:blank'} · page ${t.pageId} · owner ${seat} · ${row.state}${dialog}`);
    } else {
      lines.push(`- ${t.number}: owner ${t.owner ?? '(the host\'s boot tab, free to adopt)'} · ${row.state}${dialog}`);
    }
  }
  if (lines.length === 1) lines.push('No tabs are open.');
  return lines.join('\n');
}

/** The tools this server offers: core ones, the groups [agent] caps names, browser_run_code_unsafe only when allowed. */
export function offeredTools(host: ToolHost): ToolDef[] {
  const caps = host.agentCaps?.() ?? new Set<AgentCap>();
  return [...MODULE_TOOLS, ...TOOLS].filter((d) => (!d.cap || caps.has(d.cap)) && (!d.runsCode || host.allowRunCode?.() === true));
}

export function registerBrowserTools(server: McpServer, ctx: SessionContext, host: ToolHost): void {
  const files = new SeatFiles();
  files.register(server);
  for (const def of offeredTools(host)) {
    server.registerTool(def.name, { description: def.description, inputSchema: def.schema }, async (args: Record<string, unknown>) => {
      const p = host.profile(ctx.profileKey);
      // A restart that took the seat's tabs, then what people did on its tabs since its last call, lead the answer.
      const restart = p.takeRestartNotice(ctx.seat.key);
      const withEvents = (text: string): string => {
        const ev = takeEvents(p, ctx.seat.key);
        return [restart ? `Note: ${restart}.` : '', ev, text].filter(Boolean).join('\n');
      };
      // Downloads finished on the seat's tabs since its last call, linked as files it reads over MCP.
      const downloaded = async (): Promise<FileLink[]> => {
        const out: FileLink[] = [];
        for (const d of takeDownloads(p, ctx.seat.key)) {
          const data = await readFile(d.path).catch(() => undefined);
          if (data) out.push(files.add({ name: d.name, mimeType: mimeOf(d.name), data, description: 'A download that finished on your tab' }));
        }
        return out;
      };
      try {
        const answer = await def.run(args, ctx, p, host);
        const images = (answer.images ?? []).map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType }));
        const links = (answer.files ?? []).map((f) => files.add(f));
        const text = withEvents(answer.text);
        return { content: [{ type: 'text' as const, text }, ...images, ...links, ...(await downloaded())], ...(answer.structured ? { structuredContent: answer.structured } : {}) };
      } catch (e) {
        const text = withEvents(isForgeError(e) ? e.message : `${def.name} failed: ${(e as Error).message.split('\n')[0]}`);
        if (!isForgeError(e)) ctx.log.warn({ err: e, tool: def.name }, 'tool failed');
        return { content: [{ type: 'text' as const, text }, ...(await downloaded())], isError: true };
      }
    });
  }
}
