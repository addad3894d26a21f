/**
 * The person's home, under the strip: the hand-offs waiting first (their own cards, with Open,
 * Done and Not now), then one card per seat of the org that has a session, a tab or a terminal:
 * the seat's name, its agent's tabs (number, title, state, a dialog waiting; show opens the
 * takeover on it) and its terminal's state in words, with show (a terminal runs) or start (the
 * session has none; raising it starts one). Everything is drawn from what the server pushes
 * (`tabs`, `terminals`); a card is rebuilt only when what it shows changed, so a push between a
 * press and its release keeps the click.
 */
import type { TabRow } from '../../src/shared/protocol.js';
import { KeptElements, h } from './dom.js';
import type { BrowserShowing } from './strip.js';
import { tabRowBody } from './strip.js';
import type { Tabs } from './tabs.js';
import type { SeatTerminal, TerminalSeats } from './terminal/seats.js';
import { seatLabel } from './terminal/words.js';

interface SeatCard { seat: string; tabs: TabRow[]; shown: string | null; term: SeatTerminal | null; door: boolean }

export class Home {
  readonly el: HTMLElement;
  private readonly seatsEl: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly cards = new KeptElements<SeatCard>(
    (c) => c.seat,
    (c) => [c.tabs, c.tabs.map((t) => c.shown === t.pageId), c.term?.row?.number ?? null, c.term?.words ?? null, c.term?.up ?? false, c.door],
    (c) => this.card(c));

  /** `asks`: the hand-off cards (browser and terminal), drawn above the seats. */
  constructor(private readonly tabs: Tabs, private readonly terminals: TerminalSeats, private readonly browser: BrowserShowing, asks: HTMLElement[], extra: HTMLElement[], private readonly linkPage = false) {
    this.seatsEl = h('section', { class: 'seat-cards', 'aria-label': 'seats' });
    this.empty = h('p', { class: 'home-empty' }, 'No agent has a seat here yet: an agent that connects over MCP shows here, with its tabs and its terminal.');
    this.el = h('main', { class: 'chat home', id: 'chat', 'aria-label': 'home' },
      h('h1', { class: 'chat-title' }, 'forge'),
      ...asks, this.seatsEl, this.empty, ...extra);
    tabs.onChange(() => this.render());
    terminals.onChange(() => this.render());
  }

  render(): void {
    const tabRows = this.tabs.list?.tabs ?? [];
    const order: string[] = [];
    for (const s of this.terminals.list()) order.push(s.seat);
    for (const t of tabRows) if (!order.includes(t.owner)) order.push(t.owner);
    const shown = this.browser.shownPageId();
    const items = order.map((seat): SeatCard => {
      const term = this.terminals.of(seat);
      return { seat, tabs: tabRows.filter((t) => t.owner === seat), shown, term, door: term ? this.terminals.raisable(term) : false };
    });
    this.cards.draw(this.seatsEl, items);
    // A hand-off link's page has no seats to list: it shows its one page.
    this.empty.hidden = items.length > 0 || this.linkPage;
  }

  private card(c: SeatCard): HTMLElement {
    const tabs = c.tabs.length
      ? h('ul', { class: 'tab-rows seat-tabs', 'aria-label': `tabs of ${c.seat}` }, ...c.tabs.map((t) => this.tabRow(t, c.shown === t.pageId)))
      : h('p', { class: 'seat-line' }, 'no tabs open');
    return h('article', { class: 'seat-card', 'data-seat': c.seat, 'aria-label': `seat ${c.seat}` },
      h('h2', { class: 'card-title' }, seatLabel(c.seat), h('span', { class: 'seat-key' }, c.seat)),
      tabs, this.terminalLine(c));
  }

  private tabRow(t: TabRow, shownHere: boolean): HTMLElement {
    const action = shownHere
      ? h('button', { type: 'button', class: 'tab-action', 'aria-label': `hide tab ${t.number}`, onclick: () => this.browser.hide() }, 'hide')
      : h('button', { type: 'button', class: 'tab-action', 'aria-label': `show tab ${t.number}`, onclick: () => this.browser.show(t.pageId) }, 'show');
    return h('li', { class: 'tab-row', 'data-page-id': t.pageId, 'data-state': t.state }, tabRowBody(t), action);
  }

  private terminalLine(c: SeatCard): HTMLElement {
    const s = c.term;
    if (!s || !c.door) {
      return h('p', { class: 'seat-terminal', 'data-state': 'no session' },
        h('span', { class: 'row-name' }, 'terminal'), h('span', { class: 'row-state' }, 'the seat has no session, so no terminal'));
    }
    const name = s.row ? `terminal ${s.row.number}` : 'terminal';
    const verb = s.row ? 'show' : 'start';
    return h('div', { class: 'seat-terminal', 'data-state': s.words },
      h('span', { class: 'row-name' }, name),
      h('span', { class: 'row-state' }, s.row ? s.words : 'none runs yet'),
      s.up ? h('span', { class: 'seat-open' }, 'open over the window')
        : h('button', { type: 'button', class: 'tab-action term-action', 'aria-label': `${verb} the terminal of ${c.seat}`, onclick: () => { void this.terminals.raise(c.seat); } }, verb));
  }
}
