/**
 * The bar's tab picker: names the tab on screen and lists its profile's other tabs; choosing one
 * re-attaches this surface to it (which replaces what this connection watched).
 */
import type { TabRow } from '../../src/shared/protocol.js';
import { KeptElements, h } from './dom.js';
import { tabRowBody } from './strip.js';
import type { TabList, Tabs } from './tabs.js';

export class TabPicker {
  readonly el: HTMLElement;
  private readonly button: HTMLButtonElement;
  /** The button's words, updated in place (the button is never rebuilt, so a press on it survives a push). */
  private readonly buttonText: HTMLElement;
  private readonly menu: HTMLElement;
  private current: { number: number; pageId: string; profile: string } | null = null;
  /** The menu's items by page id: an item is redrawn only when its tab, or whether it is the current one, changed. */
  private readonly items = new KeptElements<{ t: TabRow; checked: boolean }>(
    ({ t }) => t.pageId, (i) => i, ({ t, checked }) => this.item(t, checked));

  constructor(private readonly tabs: Tabs, private readonly choose: (pageId: string) => void) {
    this.buttonText = h('span', { class: 'picker-text' });
    this.button = h('button', {
      type: 'button', class: 'picker-button', 'aria-haspopup': 'true', 'aria-expanded': 'false', 'aria-controls': 'tab-picker-menu',
      onclick: () => this.toggle(),
    }, this.buttonText, h('span', { class: 'picker-caret', 'aria-hidden': 'true' }, ' ▾'));
    this.menu = h('div', { class: 'picker-menu', id: 'tab-picker-menu', role: 'menu', 'aria-label': 'the profile\'s tabs', hidden: true });
    this.el = h('div', { class: 'picker' }, this.button, this.menu);
    this.menu.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.stopPropagation(); this.close(true); } });
    document.addEventListener('pointerdown', (e) => { if (!this.el.contains(e.target as Node)) this.close(false); });
    tabs.onChange(() => this.render());
  }

  /** The tab this surface shows (null while opening). */
  setCurrent(cur: { number: number; pageId: string; profile: string } | null): void {
    this.current = cur;
    this.render();
  }

  close(refocus: boolean): void {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
    if (refocus) this.button.focus();
  }

  private toggle(): void {
    const opening = this.menu.hidden;
    this.menu.hidden = !opening;
    this.button.setAttribute('aria-expanded', String(opening));
    if (opening) this.menu.querySelector<HTMLElement>('[role="menuitemradio"]')?.focus();
  }

  /** The list of the profile on screen (another of the org's, for a tab of a project's own profile), else this page's own. */
  private get list(): TabList | null {
    return (this.current && this.tabs.listOf(this.current.profile)) ?? this.tabs.list;
  }

  private render(): void {
    const cur = this.current;
    const list = this.list;
    const n = list?.tabs.length ?? 0;
    this.buttonText.textContent = cur ? `tab ${cur.number}` : 'tab …';
    this.button.setAttribute('aria-label', cur ? `tab ${cur.number} of ${n}; pick another tab` : 'pick a tab');
    this.button.disabled = n === 0;
    // No tab list at all (a hand-off link's page): there is nothing to pick from.
    this.el.hidden = list === null;
    // Items are kept while what they show is unchanged: a list pushed between a press and its release keeps the click.
    this.items.draw(this.menu, (list?.tabs ?? []).map((t) => ({ t, checked: cur?.pageId === t.pageId })));
  }

  private item(t: TabRow, checked: boolean): HTMLElement {
    return h('button', {
      type: 'button', class: 'picker-item', role: 'menuitemradio', 'data-page-id': t.pageId,
      'aria-checked': String(checked),
      onclick: () => { this.close(true); if (this.current?.pageId !== t.pageId) this.choose(t.pageId); },
    }, tabRowBody(t));
  }
}
