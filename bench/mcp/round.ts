/**
 * One agent round on one MCP server: every call the bench times, in an agent's order on the app
 * page, each driven by the refs that server's own snapshot gave and each checked to have done its
 * job from its answer (with the files it links), or else from one untimed evaluate of the page
 * right after, so neither server is timed doing nothing. A call that needs something open first
 * (a page to go back from, a dialog, a file chooser) gets it from an untimed call before it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { DEFAULT_PAGE_HEIGHT, DEFAULT_PAGE_WIDTH } from '../../src/shared/limits.js';
import { CLICK_ROW, DETAIL_ORDER, DRAG_ORDER, LOADED_LOG, SUMMARY_PATH, type AppServer } from './app-page.js';
import { argOf, type Answer, type Contender } from './contenders.js';

/** The timed calls of a round, in its order: the page is fresh at navigate and left behind at navigate_back. */
export const KINDS = [
  'navigate', 'snapshot', 'click', 'evaluate', 'screenshot', 'wait_for', 'fill_form',
  'type', 'select_option', 'hover', 'drag', 'drop', 'press_key', 'find',
  'console_messages', 'network_requests', 'network_request', 'handle_dialog', 'file_upload',
  'resize', 'navigate_back', 'tabs',
] as const;
export type Kind = typeof KINDS[number];

/**
 * The two layouts browser_resize alternates between, CSS px: the servers' start size and a smaller
 * one (above forge's narrowest window, 500 px), so every call changes the layout.
 */
const RESIZE_SIZES: ReadonlyArray<readonly [number, number]> = [[1024, 640], [DEFAULT_PAGE_WIDTH, DEFAULT_PAGE_HEIGHT]];

const CLICK_NAME = `Select order ${1000 + CLICK_ROW}`;
const EVALUATE_FN = "() => document.querySelectorAll('tr[aria-selected=true]').length";
/** The page's own words for what the last action did, for the checks that read the page. */
const ACTIVITY_FN = "() => document.getElementById('activity').textContent";

/** The hover's tooltip text, in a snapshot only while the tooltip shows. */
const TOOLTIP = 'Orders go new, paid';
const TOOLTIP_FN = "() => { const tip = document.getElementById('status-tip'); return tip.hidden ? 'hidden' : tip.textContent; }";

/** The elements a round acts on, by the role and name its snapshot shows them with. */
const ELEMENTS = {
  row: new RegExp(`button "${CLICK_NAME}" \\[ref=([^\\]]+)\\]`),
  customer: /textbox "Customer"[^\n]*\[ref=([^\]]+)\]/,
  urgent: /checkbox "Urgent"[^\n]*\[ref=([^\]]+)\]/,
  status: /combobox "Status"[^\n]*\[ref=([^\]]+)\]/,
  help: /button "Status help"[^\n]*\[ref=([^\]]+)\]/,
  card: new RegExp(`listitem \\[ref=([^\\]]+)\\]: Order ${DRAG_ORDER}`),
  lane: /list "Urgent orders"[^\n]*\[ref=([^\]]+)\]/,
  discard: /button "Discard draft"[^\n]*\[ref=([^\]]+)\]/,
  attachment: /button "Attachment"[^\n]*\[ref=([^\]]+)\]/,
} as const;
type Widget = keyof typeof ELEMENTS;

/** What a step's answer must show, and the page question that shows it when the answer does not. */
interface Check {
  shows: string | RegExp;
  probe?: string;
  /** false: what the call did is no snapshot's content (a layout's size), so no read is timed after it. */
  read?: boolean;
}

/** The text of the files an answer links, read where the server wrote them. */
function linkedFiles(text: string, dir: string | undefined): string {
  if (!dir) return '';
  let out = '';
  for (const m of text.matchAll(/\]\(([^)\s#]+)/g)) {
    const file = isAbsolute(m[1]) ? m[1] : resolve(dir, m[1]);
    if (/\.(ya?ml|md|txt|log)$/.test(file) && existsSync(file)) out += `\n${readFileSync(file, 'utf8')}`;
  }
  return out;
}

const shows = (text: string, what: string | RegExp): boolean => (typeof what === 'string' ? text.includes(what) : what.test(text));

export class Round {
  private refs: Partial<Record<Widget, string>> = {};
  private requestIndex = 0;
  private resizes = 0;
  /** browser_drag's arguments in this server's schema. */
  private readonly drag: Record<'start' | 'end' | 'startElement' | 'endElement', string>;

  constructor(readonly c: Contender, private readonly app: AppServer, private readonly uploadPath: string) {
    this.drag = {
      start: argOf(c.tools, 'browser_drag', ['startTarget', 'startRef']),
      end: argOf(c.tools, 'browser_drag', ['endTarget', 'endRef']),
      startElement: argOf(c.tools, 'browser_drag', ['startElement']),
      endElement: argOf(c.tools, 'browser_drag', ['endElement']),
    };
  }

  private ref(e: Widget): string {
    const r = this.refs[e];
    if (!r) throw new Error(`${this.c.name}: no ref for ${e}`);
    return r;
  }

  private el(e: Widget, name: string): Record<string, string> {
    return { element: name, [this.c.refArg]: this.ref(e) };
  }

  /** A call and what its answer shows, the files it links included. */
  private async call(tool: string, args: Record<string, unknown>): Promise<Answer & { seen: string }> {
    const r = await this.c.call(tool, args);
    return { ...r, seen: r.text + linkedFiles(r.text, this.c.dir) };
  }

  /**
   * A timed call that must show `check` in its answer or, through `check.probe`, on the page. An
   * answer that does not show it is followed by the read an agent would make to see what its call
   * did, a timed browser_snapshot: `toResult` is then the call and that read together (undefined
   * when the snapshot cannot show it either, as a layout's size).
   */
  private async checked(tool: string, args: Record<string, unknown>, check: Check): Promise<Answer & { seen: string }> {
    const r = await this.call(tool, args);
    if (shows(r.seen, check.shows)) { this.toResult = r.ms; return r; }
    if (check.probe && check.read !== false) {
      const read = await this.call('browser_snapshot', {});
      if (shows(read.seen, check.shows)) { this.toResult = r.ms + read.ms; return r; }
    }
    if (check.probe && shows((await this.call('browser_evaluate', { function: check.probe })).seen, check.shows)) return r;
    throw new Error(`${this.c.name}: ${tool} did not do its job (${String(check.shows)} is not in its answer${check.probe ? ' nor on the page' : ''}):\n${r.text.slice(0, 600)}`);
  }

  /**
   * The last step's time to a known result, ms: its call when its answer shows what it did, else
   * the call and the snapshot an agent reads to see it; undefined for a step whose effect no
   * snapshot shows (or that is checked otherwise).
   */
  toResult: number | undefined;

  async step(kind: Kind): Promise<number> {
    this.toResult = undefined;
    switch (kind) {
      case 'navigate':
        return (await this.checked('browser_navigate', { url: this.app.url }, { shows: 'Orders' })).ms;
      case 'snapshot': {
        const r = await this.call('browser_snapshot', {});
        for (const [e, re] of Object.entries(ELEMENTS) as Array<[Widget, RegExp]>) {
          const m = re.exec(r.seen);
          if (!m) throw new Error(`${this.c.name}: no ref for ${e} (${String(re)}) in its snapshot:\n${r.seen.slice(0, 600)}`);
          this.refs[e] = m[1];
        }
        return r.ms;
      }
      case 'click':
        // Checked by the evaluate that follows it.
        return (await this.call('browser_click', this.el('row', CLICK_NAME))).ms;
      case 'evaluate':
        // The page was loaded fresh this round and clicked once: exactly one row is selected.
        return (await this.checked('browser_evaluate', { function: EVALUATE_FN }, { shows: /\n1\n|\n1$/ })).ms;
      case 'screenshot': {
        const r = await this.call('browser_take_screenshot', { type: 'png' });
        if (r.images < 1 && !/\]\([^)]+\.png\)/.test(r.text)) throw new Error(`${this.c.name}: the screenshot answer has no image:\n${r.text.slice(0, 400)}`);
        return r.ms;
      }
      case 'wait_for':
        // Refused with an error when the text does not appear.
        return (await this.call('browser_wait_for', { text: 'New order' })).ms;
      case 'fill_form':
        return (await this.checked('browser_fill_form', { fields: [
          { name: 'Customer', type: 'textbox', [this.c.refArg]: this.ref('customer'), value: 'Ada Lovelace' },
          { name: 'Urgent', type: 'checkbox', [this.c.refArg]: this.ref('urgent'), value: 'true' },
        ] }, { shows: 'Draft for Ada Lovelace', probe: ACTIVITY_FN })).ms;
      case 'type':
        return (await this.checked('browser_type', { ...this.el('customer', 'Customer'), text: 'Grace Hopper' },
          { shows: 'Draft for Grace Hopper', probe: ACTIVITY_FN })).ms;
      case 'select_option':
        return (await this.checked('browser_select_option', { ...this.el('status', 'Status'), values: ['shipped'] },
          { shows: 'Status set to shipped', probe: ACTIVITY_FN })).ms;
      case 'hover':
        return (await this.checked('browser_hover', this.el('help', 'Status help'),
          { shows: TOOLTIP, probe: TOOLTIP_FN })).ms;
      case 'drag':
        return (await this.checked('browser_drag', {
          [this.drag.startElement]: `Order ${DRAG_ORDER}`, [this.drag.start]: this.ref('card'),
          [this.drag.endElement]: 'Urgent orders', [this.drag.end]: this.ref('lane'),
        }, { shows: `Order ${DRAG_ORDER} moved to urgent`, probe: ACTIVITY_FN })).ms;
      case 'drop':
        return (await this.checked('browser_drop', { ...this.el('lane', 'Urgent orders'), data: { 'text/plain': 'Order 1042' } },
          { shows: 'Dropped Order 1042 on urgent', probe: ACTIVITY_FN })).ms;
      case 'press_key':
        // The page's shortcut: Escape clears the table's selection.
        return (await this.checked('browser_press_key', { key: 'Escape' }, { shows: 'Selection cleared', probe: ACTIVITY_FN })).ms;
      case 'find':
        return (await this.checked('browser_find', { text: 'Customer 42' }, { shows: /cell "Customer 42" \[ref=/ })).ms;
      case 'console_messages':
        return (await this.checked('browser_console_messages', { level: 'info' }, { shows: LOADED_LOG })).ms;
      case 'network_requests': {
        const r = await this.checked('browser_network_requests', { static: false }, { shows: SUMMARY_PATH });
        const m = new RegExp(`(\\d+)\\. \\[GET\\] \\S*${SUMMARY_PATH}`).exec(r.seen);
        if (!m) throw new Error(`${this.c.name}: no number for ${SUMMARY_PATH} in its request list:\n${r.text.slice(0, 600)}`);
        this.requestIndex = Number(m[1]);
        return r.ms;
      }
      case 'network_request':
        return (await this.checked('browser_network_request', { index: this.requestIndex, part: 'response-body' }, { shows: '"orders":' })).ms;
      case 'handle_dialog': {
        await this.call('browser_click', this.el('discard', 'Discard draft'));
        return (await this.checked('browser_handle_dialog', { accept: true }, { shows: 'Draft discarded', probe: ACTIVITY_FN })).ms;
      }
      case 'file_upload': {
        await this.call('browser_click', this.el('attachment', 'Attachment'));
        return (await this.checked('browser_file_upload', { paths: [this.uploadPath] }, { shows: `Attached ${basename(this.uploadPath)}`, probe: ACTIVITY_FN })).ms;
      }
      case 'resize': {
        const [width, height] = RESIZE_SIZES[this.resizes++ % RESIZE_SIZES.length];
        return (await this.checked('browser_resize', { width, height }, { shows: `${width}x${height}`, probe: "() => innerWidth + 'x' + innerHeight", read: false })).ms;
      }
      case 'navigate_back': {
        // A real step back: the order's own page is opened first, untimed.
        await this.checked('browser_navigate', { url: this.app.detailUrl }, { shows: `heading "Order ${DETAIL_ORDER}"` });
        return (await this.checked('browser_navigate_back', {}, { shows: 'heading "New order"' })).ms;
      }
      case 'tabs':
        return (await this.checked('browser_tabs', { action: 'list' }, { shows: this.app.url })).ms;
    }
  }
}
