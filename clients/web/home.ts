/**
 * The person's home, under the strip: the hand-offs waiting first (their own cards, with Open,
 * Done and Not now), then one card per seat of the org that has a session, a tab or a terminal:
 * the seat's name, its agent's tabs (a live thumbnail, number, title, state, a dialog waiting; show opens the
 * takeover on it) and its terminal's state in words, with show (a terminal runs) or start (the
 * session has none; raising it starts one). Everything is drawn from what the server pushes
 * (`tabs`, `terminals`); a card is rebuilt only when what it shows changed, so a push between a
 * press and its release keeps the click.
 */
import type { TabRow } from '../../src/shared/protocol.js';
import { KeptElements, h, place } from './dom.js';
import type { BrowserShowing } from './strip.js';
import { tabRowBody } from './strip.js';
import type { Tabs } from './tabs.js';
import type { SeatTerminal, TerminalSeats } from './terminal/seats.js';
import { seatLabel } from './terminal/words.js';
import type { ThumbWatch } from './thumbs.js';


/** A seat's terminal line on its card, built once and updated in place: the state changes often, and a push between a press and its release keeps the click. */
class TerminalLine {
  readonly el: HTMLElement;
  private readonly name = h('span', { class: 'row-name' });
  private readonly state = h('span', { class: 'row-state' });
  private readonly open = h('span', { class: 'seat-open' }, 'open over the window');
  private readonly action: HTMLButtonElement;

  constructor(seat: string, raise: () => void) {
    this.action = h('button', { type: 'button', class: 'tab-action term-action', onclick: raise });
    this.el = h('div', { class: 'seat-terminal', 'data-seat': seat }, this.name, this.state, this.open, this.action);
  }

  draw(seat: string, s: SeatTerminal | null, door: boolean): void {
    if (!s || !door) {
      this.el.dataset.state = 'no session';
      this.name.textContent = 'terminal';
      this.state.textContent = 'the seat has no session, so no terminal';
      this.open.hidden = true;
      this.action.hidden = true;
      return;
    }
    const verb = s.row ? 'show' : 'start';
    this.el.dataset.state = s.words;
    this.name.textContent = s.row ? `terminal ${s.row.number}` : 'terminal';
    this.state.textContent = s.row ? s.words : 'none runs yet';
    this.open.hidden = !s.up;
    this.action.hidden = s.up;
    this.action.textContent = verb;
    this.action.setAttribute('aria-label', `${verb} the terminal of ${seat}`);
  }
}

export class Home {
  readonly el: HTMLElement;
  private readonly seatsEl: HTMLElement;
  private readonly empty: HTMLElement;
  /** Each seat's card, built once: its tab rows are kept by page id and its terminal line is updated in place. */
  private readonly cards = new Map<string, SeatCardView>();

  /** `asks`: the hand-off cards (browser and terminal), drawn above the seats. */
  constructor(private readonly tabs: Tabs, private readonly terminals: TerminalSeats, private readonly browser: BrowserShowing, asks: HTMLElement[], extra: HTMLElement[], private readonly linkPage = false, private readonly thumbs?: ThumbWatch) {
    this.seatsEl = h('section', { class: 'seat-cards', 'aria-label': 'seats' });
    this.empty = h('p', { class: 'home-empty' }, 'No agent has a seat here yet: an agent that connects over MCP shows here, with its tabs and its terminal.');
    this.el = h('main', { class: 'chat home', id: 'chat', 'aria-label': 'home' },
      h('h1', { class: 'chat-title' }, 'forge'),
      ...asks, this.seatsEl, this.empty, ...extra);
    tabs.onChange(() => this.render());
    terminals.onChange(() => this.render());
  }

  render(): void {
    // Every profile of the org: a project with a browser profile of its own has its seats' tabs there.
    const tabRows = this.tabs.allRows();
    const order: string[] = [];
    for (const s of this.terminals.list()) order.push(s.seat);
    for (const t of tabRows) if (!order.includes(t.owner)) order.push(t.owner);
    const shown = this.browser.shownPageId();
    place(this.seatsEl, order.map((seat) => {
      let c = this.cards.get(seat);
      if (!c) {
        c = new SeatCardView(seat, this.browser, () => { void this.terminals.raise(seat); }, this.thumbs);
        this.cards.set(seat, c);
      }
      const term = this.terminals.of(seat);
      c.draw(tabRows.filter((t) => t.owner === seat), shown, term, term ? this.terminals.raisable(term) : false);
      return c.el;
    }));
    for (const seat of this.cards.keys()) if (!order.includes(seat)) this.cards.delete(seat);
    this.thumbs?.keep(new Set(tabRows.map((t) => t.pageId)));
    // A hand-off link's page has no seats to list: it shows its one page.
    this.empty.hidden = order.length > 0 || this.linkPage;
  }
}

/** One seat's card: its name, its agent's tabs (kept by page id, so a push keeps a press on show) and its terminal line. */
class SeatCardView {
  readonly el: HTMLElement;
  private readonly tabsEl: HTMLElement;
  private readonly noTabs: HTMLElement;
  private readonly line: TerminalLine;
  private readonly rows = new KeptElements<{ t: TabRow; shownHere: boolean }>(
    ({ t }) => t.pageId, (r) => r, ({ t, shownHere }) => this.tabRow(t, shownHere));

  constructor(private readonly seat: string, private readonly browser: BrowserShowing, raise: () => void, private readonly thumbs?: ThumbWatch) {
    this.tabsEl = h('ul', { class: 'tab-rows seat-tabs', 'aria-label': `tabs of ${seat}` });
    this.noTabs = h('p', { class: 'seat-line' }, 'no tabs open');
    this.line = new TerminalLine(seat, raise);
    this.el = h('article', { class: 'seat-card', 'data-seat': seat, 'aria-label': `seat ${seat}` },
      h('h2', { class: 'card-title' }, seatLabel(seat), h('span', { class: 'seat-key' }, seat)),
      this.tabsEl, this.noTabs, this.line.el);
  }

  draw(tabs: TabRow[], shown: string | null, term: SeatTerminal | null, door: boolean): void {
    this.rows.draw(this.tabsEl, tabs.map((t) => ({ t, shownHere: shown === t.pageId })));
    this.tabsEl.hidden = tabs.length === 0;
    this.noTabs.hidden = tabs.length > 0;
    this.line.draw(this.seat, term, door);
  }

  private tabRow(t: TabRow, shownHere: boolean): HTMLElement {
    const action = shownHere
      ? h('button', { type: 'button', class: 'tab-action', 'aria-label': `hide tab ${t.number}`, onclick: () => this.browser.hide() }, 'hide')
      : h('button', { type: 'button', class: 'tab-action', 'aria-label': `show tab ${t.number}`, onclick: () => this.browser.show(t.pageId) }, 'show');
    // The live picture: the same element across redraws, so a push keeps the last frame shown.
    const thumb = this.thumbs && t.loaded ? this.thumbs.imgFor(t.pageId) : null;
    return h('li', { class: 'tab-row', 'data-page-id': t.pageId, 'data-state': t.state }, thumb, tabRowBody(t), action);
  }
}
