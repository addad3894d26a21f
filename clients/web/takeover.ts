/**
 * The takeover: a fixed layer over the page, the bar at the top and a surface under it. It is a
 * dialog labelled by the bar's title. Raising it pushes one history entry, so the browser's own
 * Back lowers it the way back to chat does. The keys live either with the surface (the page) or
 * with the bar; the pane chord moves them, and Tab wraps inside the bar while it has them.
 * A surface (the browser's, or the terminal's) fills the bar's controls and the stage.
 */
import { h } from './dom.js';
import { isPaneChord } from './keys.js';
import { NOTICE_MS } from './limits.js';

/** What a surface shown in the takeover provides. */
export interface TakeoverSurface {
  /** Which surface this is: the layer's data-surface, for styling and tests. */
  readonly kind: string;
  /** Controls left of the title (history arrows, the picker). */
  readonly nav: HTMLElement;
  /** Controls right of the title (take control …); they wrap onto their own line on a narrow screen. */
  readonly actions: HTMLElement;
  /** The picture or the terminal, filling the stage. */
  readonly body: HTMLElement;
  /** Gives the surface the keys (focus its own key sink); false when it has nothing to hold them. */
  takeKeys(): boolean;
  /** The layer was lowered (back to chat, Back, hide): the surface lets go of what it watched. */
  lowered(): void;
}

const STATE_KEY = 'forgeTakeover';

export class Takeover {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly hint: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly navSlot: HTMLElement;
  private readonly actionSlot: HTMLElement;
  /** Under the bar row: a parked hand-off's words, note line and answers. */
  readonly askSlot: HTMLElement;
  private readonly stage: HTMLElement;
  private readonly bar: HTMLElement;
  private surface: TakeoverSurface | null = null;
  private noticeTimer: number | undefined;
  private chordUsed = false;
  /** The control that raised the layer: the keys go back to it when the layer is lowered. */
  private opener: HTMLElement | null = null;
  /** Where the keys go after a lower when the opener is gone (the strip's row). */
  focusAfterLower: () => HTMLElement | null = () => null;
  /** Called after the layer is raised or lowered. */
  onChange: () => void = () => {};

  constructor() {
    this.title = h('h1', { class: 'bar-title', id: 'takeover-title' });
    this.hint = h('span', { class: 'bar-hint', hidden: true }, 'Ctrl Alt ↓ for the bar');
    this.navSlot = h('div', { class: 'bar-nav' });
    this.actionSlot = h('div', { class: 'bar-actions' });
    this.notice = h('p', { class: 'bar-notice', role: 'status', 'aria-live': 'polite' });
    this.askSlot = h('div', { class: 'bar-ask' });
    const back = h('button', { type: 'button', class: 'bar-back', onclick: () => this.lower() }, h('span', { 'aria-hidden': 'true' }, '←'), ' back to chat');
    this.bar = h('header', {
      class: 'bar', role: 'group', 'aria-labelledby': 'takeover-title',
      'aria-keyshortcuts': 'Control+Alt+ArrowDown Control+Alt+ArrowUp Meta+Alt+ArrowDown Meta+Alt+ArrowUp',
    },
    h('div', { class: 'bar-row' }, back, this.navSlot, h('div', { class: 'bar-heading' }, this.title, this.hint), this.actionSlot),
    this.notice, this.askSlot);
    this.stage = h('div', { class: 'stage' });
    this.el = h('div', { class: 'takeover', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'takeover-title', hidden: true }, this.bar, this.stage);
    this.el.addEventListener('keydown', (e) => this.barKeys(e));
    window.addEventListener('popstate', () => {
      if (this.up && !(history.state as Record<string, unknown> | null)?.[STATE_KEY]) this.lower(false);
    });
  }

  get up(): boolean { return this.surface !== null; }
  get shown(): TakeoverSurface | null { return this.surface; }

  /** Raises the layer with `surface` in it (replacing another surface, keeping the one history entry). */
  raise(surface: TakeoverSurface, title: string): void {
    const replacing = this.surface;
    if (replacing && replacing !== surface) replacing.lowered();
    this.surface = surface;
    this.el.dataset.surface = surface.kind;
    this.setTitle(title);
    this.navSlot.replaceChildren(surface.nav);
    this.actionSlot.replaceChildren(surface.actions);
    this.stage.replaceChildren(surface.body);
    if (!replacing) this.opener = document.activeElement instanceof HTMLElement && !this.el.contains(document.activeElement) ? document.activeElement : null;
    this.el.hidden = false;
    document.body.classList.add('taken-over');
    if (!replacing) history.pushState({ ...(history.state as object | null), [STATE_KEY]: true }, '');
    // The page keeps the keys on open; a surface with nothing to hold them gives them to the bar.
    this.keysToPage();
    this.onChange();
  }

  /** Lowers the layer: the chat is under it. `popHistory` false when the browser's Back already did. */
  lower(popHistory = true): void {
    const s = this.surface;
    if (!s) return;
    this.surface = null;
    this.el.hidden = true;
    delete this.el.dataset.surface;
    document.body.classList.remove('taken-over');
    s.lowered();
    this.stage.replaceChildren();
    this.askSlot.replaceChildren();
    if (popHistory && (history.state as Record<string, unknown> | null)?.[STATE_KEY]) history.back();
    this.onChange();
    // The strip redrew its row: find the opener again by id when the element itself was replaced.
    const back = this.opener?.isConnected ? this.opener : this.opener?.id ? document.getElementById(this.opener.id) : null;
    (back ?? this.focusAfterLower())?.focus({ preventScroll: true });
    this.opener = null;
  }

  setTitle(title: string): void { this.title.textContent = title; }

  /** A refusal or a passing sentence on the bar's own line. */
  say(sentence: string, tone: 'refusal' | 'plain' = 'refusal'): void {
    this.notice.textContent = sentence;
    this.notice.dataset.tone = tone;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = window.setTimeout(() => { this.notice.textContent = ''; }, NOTICE_MS);
  }

  /** Clears the bar's line (a refusal that no longer holds, such as a watcher's after taking control). */
  quiet(): void {
    clearTimeout(this.noticeTimer);
    this.notice.textContent = '';
  }

  keysToPage(): void {
    if (this.surface?.takeKeys()) {
      this.el.dataset.keys = 'page';
      this.hint.hidden = this.chordUsed;
    } else {
      this.keysToBar();
    }
  }

  keysToBar(): void {
    this.el.dataset.keys = 'bar';
    this.hint.hidden = true;
    const first = this.focusables()[0];
    first?.focus();
  }

  /** The pane chord from the page's key sink. */
  chordFromPage(): void {
    this.chordUsed = true;
    this.keysToBar();
  }

  private focusables(): HTMLElement[] {
    return [...this.bar.querySelectorAll<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => !(el as HTMLButtonElement).disabled && el.offsetParent !== null);
  }

  private barKeys(e: KeyboardEvent): void {
    if (!this.bar.contains(e.target as Node)) return;
    if (isPaneChord(e)) {
      e.preventDefault();
      this.chordUsed = true;
      this.keysToPage();
      return;
    }
    if (e.key === 'Tab') {
      const f = this.focusables();
      if (f.length === 0) return;
      const i = f.indexOf(document.activeElement as HTMLElement);
      const next = e.shiftKey ? (i <= 0 ? f.length - 1 : i - 1) : (i === f.length - 1 || i < 0 ? 0 : i + 1);
      e.preventDefault();
      f[next]!.focus();
    }
  }
}
