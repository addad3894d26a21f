/**
 * The strip: one row per surface that has something behind it. The browser row shows the tab
 * count and the host's dot, and opens a panel of the profile's tabs with show / hide. The row
 * is drawn only while the profile has a tab. The terminal's row mounts in its own slot.
 */
import { speakerIcon } from './icons.js';
import type { TabRow } from '../../src/shared/protocol.js';
import { KeptElements, fill, h, place } from './dom.js';
import { STATE_MARK, tabLabel, type TabList, type Tabs } from './tabs.js';

/** What the strip asks of this page's own browser surface: show / hide read it, never the server. */
export interface BrowserShowing {
  /** The page id this page's takeover is up on, or null when it is lowered. */
  shownPageId(): string | null;
  show(pageId: string): void;
  hide(): void;
}

const HOST_DOT: Record<TabList['host'], { mark: string; words: string }> = {
  connected: { mark: '●', words: 'the host is connected' },
  idle: { mark: '◌', words: 'the host is up, nothing drives it' },
  none: { mark: '×', words: 'nothing runs' },
};

export class Strip {
  readonly el: HTMLElement;
  /** Where the terminal's row mounts (its module fills it). */
  readonly terminalSlot: HTMLElement;
  private readonly browserSlot: HTMLElement;
  private readonly notice: HTMLElement;
  private open = false;
  private list: TabList | null = null;
  // Built once and updated in place, so a list pushed between a press and its release keeps the click.
  private readonly row: HTMLButtonElement;
  private readonly rowCount: HTMLElement;
  private readonly rowDot: HTMLElement;
  private readonly panelEl: HTMLElement;
  private readonly tabRows: HTMLElement;
  private readonly engine: HTMLElement;
  /** The panel's rows by page id: a row is redrawn only when its tab, or whether it is shown here, changed. */
  private readonly rows = new KeptElements<{ t: TabRow; shownHere: boolean }>(
    ({ t }) => t.pageId, (r) => r, ({ t, shownHere }) => this.tabRow(t, shownHere));

  constructor(private readonly tabs: Tabs, private readonly browser: BrowserShowing) {
    this.browserSlot = h('div', { class: 'strip-slot', 'data-surface': 'browser' });
    this.terminalSlot = h('div', { class: 'strip-slot', 'data-surface': 'terminal' });
    this.notice = h('p', { class: 'strip-notice', role: 'status', 'aria-live': 'polite' });
    this.el = h('nav', { class: 'strip', 'aria-label': 'surfaces' }, this.browserSlot, this.terminalSlot, this.notice);
    this.rowCount = h('span', { class: 'row-count' });
    this.rowDot = h('span', { class: 'row-dot' });
    this.row = h('button', {
      class: 'strip-row', type: 'button', id: 'browser-row', 'aria-controls': 'browser-panel',
      onclick: () => { this.open = !this.open; this.render(); },
    }, h('span', { class: 'row-name' }, 'browser'), this.rowCount, this.rowDot);
    this.tabRows = h('ul', { class: 'tab-rows' });
    this.engine = h('p', { class: 'engine-line' });
    this.panelEl = h('div', { class: 'strip-panel', id: 'browser-panel', role: 'region' }, this.tabRows, this.engine);
    tabs.onChange((l) => { this.list = l; this.render(); });
  }

  /** Redraws show / hide after this page's surface changed. */
  refresh(): void { this.render(); }

  /** The browser row's button, where the keys return after the takeover is lowered. */
  focusTarget(): HTMLElement | null { return this.browserSlot.querySelector<HTMLElement>('.strip-row'); }

  /** A refused show or hide says so on the strip. */
  say(sentence: string): void { this.notice.textContent = sentence; }

  private render(): void {
    const l = this.list;
    if (!l || l.tabs.length === 0) {
      // A browser nothing has invoked is no row at all.
      this.open = false;
      fill(this.browserSlot);
      return;
    }
    const dot = HOST_DOT[l.host] ?? HOST_DOT.none;
    const closing = l.closingInMinutes !== undefined ? ` · closing in ${l.closingInMinutes}m` : '';
    const n = l.tabs.length;
    this.row.setAttribute('aria-expanded', String(this.open));
    this.row.title = `profile ${l.profile} · ${dot.words}${closing}`;
    this.rowCount.textContent = String(n);
    this.rowCount.setAttribute('aria-label', `${n} ${n === 1 ? 'tab' : 'tabs'}`);
    this.rowDot.dataset.host = l.host;
    this.rowDot.setAttribute('aria-label', dot.words);
    this.rowDot.textContent = dot.mark;
    if (this.open) this.drawPanel(l);
    place(this.browserSlot, this.open ? [this.row, this.panelEl] : [this.row]);
  }

  private drawPanel(l: TabList): void {
    const shown = this.browser.shownPageId();
    this.panelEl.setAttribute('aria-label', `browser tabs of ${l.profile}`);
    this.engine.textContent = l.closingInMinutes !== undefined
      ? `closing in ${l.closingInMinutes}m`
      : l.host === 'none' ? 'nothing to run a page' : 'the server\'s own Chromium, on every client';
    this.rows.draw(this.tabRows, l.tabs.map((t) => ({ t, shownHere: shown === t.pageId })));
  }

  private tabRow(t: TabRow, shownHere: boolean): HTMLElement {
    const action = shownHere
      ? h('button', { type: 'button', class: 'tab-action', onclick: () => { this.open = false; this.browser.hide(); } }, 'hide')
      : h('button', { type: 'button', class: 'tab-action', onclick: () => { this.open = false; this.browser.show(t.pageId); } }, 'show');
    return h('li', { class: 'tab-row', 'data-page-id': t.pageId, 'data-state': t.state },
      tabRowBody(t), action);
  }
}

/** A tab's number, title (else URL), owner, state with its mark, a waiting dialog and its sound: shared by the panel and the picker. */
export function tabRowBody(t: TabRow): HTMLElement {
  return h('span', { class: 'tab-body' },
    h('span', { class: 'tab-number' }, String(t.number)),
    h('span', { class: 'tab-title', title: t.url }, tabLabel(t)),
    h('span', { class: 'tab-owner' }, t.owner),
    h('span', { class: 'tab-state' }, h('span', { class: 'state-mark', 'aria-hidden': 'true' }, STATE_MARK[t.state] ?? ''), ` ${t.state}`),
    t.dialog ? h('span', { class: 'tab-dialog', title: t.dialog.message }, `${t.dialog.kind} waiting`) : null,
    t.audible ? h('span', { class: 'tab-sound', title: 'the page plays sound; its controller hears it' }, speakerIcon('playing'), ' plays sound') : null,
    t.loaded ? null : h('span', { class: 'tab-unloaded', title: 'unloaded to save memory; showing it reloads the page' }, 'unloaded'));
}
