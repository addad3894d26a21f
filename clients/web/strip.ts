/**
 * The strip: one row per surface that has something behind it. The browser row shows the tab
 * count and the host's dot, and opens a panel of the profile's tabs with show / hide. The row
 * is drawn only while the profile has a tab. The terminal's row mounts in its own slot.
 */
import type { TabRow } from '../../src/shared/protocol.js';
import { fill, h } from './dom.js';
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

  constructor(private readonly tabs: Tabs, private readonly browser: BrowserShowing) {
    this.browserSlot = h('div', { class: 'strip-slot', 'data-surface': 'browser' });
    this.terminalSlot = h('div', { class: 'strip-slot', 'data-surface': 'terminal' });
    this.notice = h('p', { class: 'strip-notice', role: 'status', 'aria-live': 'polite' });
    this.el = h('nav', { class: 'strip', 'aria-label': 'surfaces' }, this.browserSlot, this.terminalSlot, this.notice);
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
    const row = h('button', {
      class: 'strip-row', type: 'button', id: 'browser-row',
      'aria-expanded': String(this.open), 'aria-controls': 'browser-panel',
      title: `profile ${l.profile} · ${dot.words}${closing}`,
      onclick: () => { this.open = !this.open; this.render(); },
    },
    h('span', { class: 'row-name' }, 'browser'),
    h('span', { class: 'row-count', 'aria-label': `${n} ${n === 1 ? 'tab' : 'tabs'}` }, String(n)),
    h('span', { class: 'row-dot', 'data-host': l.host, 'aria-label': dot.words }, dot.mark));
    fill(this.browserSlot, row, this.open ? this.panel(l) : null);
  }

  private panel(l: TabList): HTMLElement {
    const shown = this.browser.shownPageId();
    const engine = l.closingInMinutes !== undefined
      ? `closing in ${l.closingInMinutes}m`
      : l.host === 'none' ? 'nothing to run a page' : 'the server\'s own Chromium, on every client';
    return h('div', { class: 'strip-panel', id: 'browser-panel', role: 'region', 'aria-label': `browser tabs of ${l.profile}` },
      h('ul', { class: 'tab-rows' }, ...l.tabs.map((t) => this.tabRow(t, shown === t.pageId))),
      h('p', { class: 'engine-line' }, engine));
  }

  private tabRow(t: TabRow, shownHere: boolean): HTMLElement {
    const action = shownHere
      ? h('button', { type: 'button', class: 'tab-action', onclick: () => { this.open = false; this.browser.hide(); } }, 'hide')
      : h('button', { type: 'button', class: 'tab-action', onclick: () => { this.open = false; this.browser.show(t.pageId); } }, 'show');
    return h('li', { class: 'tab-row', 'data-page-id': t.pageId, 'data-state': t.state },
      tabRowBody(t), action);
  }
}

/** A tab's number, title (else URL), owner, state with its mark, and a waiting dialog: shared by the panel and the picker. */
export function tabRowBody(t: TabRow): HTMLElement {
  return h('span', { class: 'tab-body' },
    h('span', { class: 'tab-number' }, String(t.number)),
    h('span', { class: 'tab-title', title: t.url }, tabLabel(t)),
    h('span', { class: 'tab-owner' }, t.owner),
    h('span', { class: 'tab-state' }, h('span', { class: 'state-mark', 'aria-hidden': 'true' }, STATE_MARK[t.state] ?? ''), ` ${t.state}`),
    t.dialog ? h('span', { class: 'tab-dialog', title: t.dialog.message }, `${t.dialog.kind} waiting`) : null);
}
