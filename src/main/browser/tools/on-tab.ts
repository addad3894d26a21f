/**
 * A call on the seat's current tab: the page is reloaded first if its renderer died, the seat's
 * offline state is kept on it, and the answer gets its common parts (notices, a dialog it opened).
 */
import { ForgeError } from '../../../shared/errors.js';
import type { SessionContext, ToolAnswer } from '../../mcp/context.js';
import { inForgeWords } from '../driver-errors.js';
import type { ProfileBrowser } from '../profile.js';
import { dialogOpened, dialogRefusal, type Tab } from '../tabs.js';
import { header } from './page-state.js';
import { keepSeatNetwork } from './seat-offline.js';
import { settleCall } from './action-watch.js';
import { followRebuilt } from './video-running.js';
import { consoleLine, consoleMark, consoleSince } from '../page-records.js';

/** Console messages an action's answer shows at most; past it the count is said and browser_console_messages lists them. */
export const ACTION_CONSOLE_SHOWN_MAX = 10;

/** What the page logged while the call ran (its newest ten), as a section of the answer; '' when nothing. */
function newConsole(tab: Tab, mark: number): string {
  const { entries, lost } = consoleSince(tab, mark);
  const more = entries.length - ACTION_CONSOLE_SHOWN_MAX + lost;
  if (!entries.length && !lost) return '';
  const lines = ['### New console messages', ...entries.slice(-ACTION_CONSOLE_SHOWN_MAX).map(consoleLine)];
  if (more > 0) lines.splice(1, 0, `(${more} earlier of this call's messages not shown: browser_console_messages lists what the tab keeps)`);
  return lines.join('\n');
}

/** Tools that may run on a page forge just reloaded; others hold refs the crash took away. */
const RUNS_AFTER_REBUILD = new Set(['browser_navigate', 'browser_snapshot', 'browser_tabs', 'browser_navigate_back']);

/** Reloads a page whose renderer died, and says so; refs-holding calls are refused after it. */
async function rebuild(tab: Tab, tool: string, p: ProfileBrowser): Promise<string> {
  const url = tab.page.url();
  await p.rebuildTab(tab, url);
  tab.crashed = false;
  await followRebuilt(p, tab, `the page had crashed and forge reloaded it (${url})`);
  const said = `the page in tab ${tab.number} (${tab.pageId}) had crashed; forge reloaded it (${url})`;
  if (!RUNS_AFTER_REBUILD.has(tool)) throw new ForgeError('page_crashed', `${said}; its earlier refs are gone — take a fresh browser_snapshot, then try again`);
  return said;
}

/** Tools that only read the page: nothing they do opens a popup, so they skip the settle and the barrier. */
const READS_ONLY = new Set([
  'browser_snapshot', 'browser_find', 'browser_take_screenshot', 'browser_console_messages', 'browser_network_requests', 'browser_network_request', 'browser_wait_for',
  'browser_pdf_save', 'browser_generate_locator', 'browser_verify_element_visible', 'browser_verify_text_visible', 'browser_verify_list_visible', 'browser_verify_value',
]);

/** Runs a call on the seat's current tab and writes the common parts of its answer. */
export async function onTab(p: ProfileBrowser, ctx: SessionContext, tool: string, what: string, work: (tab: Tab) => Promise<string>, opts: { allowDialog?: boolean; allowChooser?: boolean; dialogRefuses?: boolean; leavesPage?: boolean } = {}): Promise<ToolAnswer> {
  const runOn = async (tab: Tab): Promise<string> => {
    const since = READS_ONLY.has(tool) ? undefined : Date.now() - 2;
    const mark = consoleMark(tab);
    let rebuilt = tab.crashed ? await rebuild(tab, tool, p) : '';
    await keepSeatNetwork(p, ctx.seat.key, tab);
    let text: string;
    try {
      text = await work(tab);
    } catch (e) {
      if (!/Target crashed/.test((e as Error)?.message ?? '')) throw inForgeWords(e, tab, what);
      // The driver saw the renderer die before its crash event: rebuild now, then once more.
      tab.crashed = true;
      rebuilt = await rebuild(tab, tool, p);
      try { text = await work(tab); } catch (e2) { throw inForgeWords(e2, tab, what); }
    }
    if (since !== undefined) await settleCall(tab, since);
    await p.settlePopups(tab, since !== undefined);
    // A reading call logs nothing of its own; an action's answer shows what the page logged meanwhile.
    const logged = since !== undefined ? newConsole(tab, mark) : '';
    if (logged) text = `${text}\n${logged}`;
    return rebuilt ? `Note: ${rebuilt}.\n${text}` : text;
  };
  const r = await p.call(ctx.seat.key, tool, runOn, opts);
  const notes: string[] = [];
  notes.push(...r.tab.notices.splice(0).map((n) => `Note: ${n}.`));
  if (r.dialogOpened) {
    if (opts.dialogRefuses) throw new ForgeError('dialog_waiting', `${what} was cut short: ${dialogRefusal(r.dialogOpened)}`);
    notes.push(dialogOpened(r.dialogOpened));
    return { text: [...notes, header(r.tab)].join('\n') };
  }
  return { text: [...notes, r.value as string].join('\n') };
}
