/**
 * Hand-offs find the person: the page's title counts the asks waiting (`(2) forge`), and, once
 * the person allowed it, an ask that arrives while they look at another window raises a browser
 * notification that names the seat and the agent's words and opens the ask when clicked. Only an
 * open page notifies: forge has no push service, so a closed page is not woken.
 */
import { h } from './dom.js';

/** One ask waiting, browser or terminal, as the title and a notification name it. */
export interface Waiting {
  /** Stable across pushes: a notification is raised once per ask. */
  key: string;
  seat: string;
  words: string;
  open(): void;
}

/** The page's own name, the title's words with nothing waiting. */
export const PAGE_TITLE = 'forge';

const PERMISSION_WORDS: Record<NotificationPermission, string> = {
  default: '',
  granted: 'This page notifies you of a hand-off while it is open.',
  denied: 'Notifications are blocked for this page in the browser\'s settings.',
};

export class Attention {
  /** The control that asks for the browser's permission, and says what was decided. */
  readonly el: HTMLElement;
  private readonly ask: HTMLButtonElement;
  private readonly line: HTMLElement;
  private known = new Set<string>();
  private readonly open = new Map<string, Notification>();

  constructor() {
    this.ask = h('button', { type: 'button', class: 'notify-ask', onclick: () => void this.requestPermission() }, 'Notify me of hand-offs');
    this.line = h('p', { class: 'notify-line', role: 'status' });
    this.el = h('div', { class: 'notify' }, this.ask, this.line);
    this.renderPermission();
  }

  /** What waits now: the title follows, and asks new since the last call notify when the page is not looked at. */
  update(waiting: Waiting[]): void {
    document.title = waiting.length ? `(${waiting.length}) ${PAGE_TITLE}` : PAGE_TITLE;
    const keys = new Set(waiting.map((w) => w.key));
    for (const [k, n] of this.open) if (!keys.has(k)) { n.close(); this.open.delete(k); }
    const fresh = waiting.filter((w) => !this.known.has(w.key));
    this.known = keys;
    if (!supported() || Notification.permission !== 'granted' || lookedAt()) return;
    for (const w of fresh) this.notify(w);
  }

  private notify(w: Waiting): void {
    try {
      const n = new Notification(`${w.seat} hands off to you`, { body: w.words, tag: w.key });
      n.onclick = () => { window.focus(); n.close(); w.open(); };
      this.open.set(w.key, n);
    } catch {
      // A browser that offers Notification only to a service worker (Android): the title still counts.
    }
  }

  private async requestPermission(): Promise<void> {
    if (!supported()) return;
    await Notification.requestPermission();
    this.renderPermission();
  }

  private renderPermission(): void {
    if (!supported()) { this.el.hidden = true; return; }
    const p = Notification.permission;
    this.ask.hidden = p !== 'default';
    this.line.textContent = PERMISSION_WORDS[p];
    this.line.hidden = p === 'default';
  }
}

function supported(): boolean { return typeof Notification !== 'undefined'; }

/** The person is looking at this page: it is visible and its window has the focus. */
function lookedAt(): boolean { return document.visibilityState === 'visible' && document.hasFocus(); }
