/**
 * The strip's terminal rows: one per seat the org reports (see seats.ts), each in the words of its
 * terminal's state: a command is running, waiting for you, a password is wanted, another client
 * has the keyboard, exited, idle, off. A seat with a session is a door even before a terminal runs
 * (off; raising it starts one); the page's own seat without a session is a note. The first row (the
 * page's seat, else the first the org reports) is `#terminal-row`; with more than one, each names
 * its seat. Raising a row opens the terminal surface under the takeover's bar; the xterm.js chunk
 * is fetched on that first raise only. A terminal hand-off also shows as a card on the home:
 * terminal hand-off · terminal N, the agent's reason, typing is hidden when it is, and Open
 * terminal, Done and Not now; once the surface is up the card leaves the answers to its bar.
 */
import type { TermRow } from '../../../src/shared/terminal.js';
import { KeptElements, h, place } from '../dom.js';
import type { SurfaceConn } from '../connection.js';
import { seatNames } from './words.js';
import type { SeatTerminal, TerminalSeats } from './seats.js';

export { rowWords } from './words.js';

export interface TerminalRowParts {
  conn: SurfaceConn;
  slot: HTMLElement;
  seats: TerminalSeats;
  /** Where the home shows a terminal hand-off's card. */
  cards: HTMLElement;
}

/** One seat's strip row, built once and updated in place: a push between a press and its release keeps the click. */
class SeatRow {
  readonly button: HTMLButtonElement;
  readonly note: HTMLElement;
  private readonly seatName = h('span', { class: 'row-seat' });
  private readonly name = h('span', { class: 'row-name' });
  private readonly state = h('span', { class: 'row-state' });

  constructor(private readonly seat: string, raise: () => void) {
    this.button = h('button', { class: 'strip-row', type: 'button', 'data-seat': seat, onclick: raise }, this.seatName, this.name, this.state);
    // A seat with no session: a terminal opened there would have no record to draw it for.
    this.note = h('p', { class: 'strip-row strip-note', 'data-seat': seat, 'data-state': 'no session' },
      h('span', { class: 'row-name' }, 'terminal'), h('span', { class: 'row-state' }, 'the seat has no session yet - start it first'));
  }

  /** The element to show now, with its words; `first` carries `#terminal-row`, `name` is the seat's as the strip shows it ('' for none). */
  draw(s: SeatTerminal, first: boolean, name: string, door: boolean): HTMLElement {
    const el = door ? this.button : this.note;
    const other = door ? this.note : this.button;
    other.removeAttribute('id');
    if (first) el.id = 'terminal-row'; else el.removeAttribute('id');
    if (!door) return el;
    this.seatName.textContent = name;
    this.button.dataset.state = s.words;
    this.button.title = s.row ? `terminal ${s.row.number} of ${s.seat}` : `no terminal runs for ${s.seat}; raising it starts one`;
    this.name.textContent = s.row ? `terminal ${s.row.number}` : 'terminal';
    this.state.textContent = s.words;
    return el;
  }
}

export function mountTerminalRows(p: TerminalRowParts): void {
  const rows = new Map<string, SeatRow>();
  // Cards are kept while what they show is unchanged (the server pushes the terminal's state often).
  const cards = new KeptElements<{ r: TermRow; up: boolean }>(
    ({ r }) => String(r.term), ({ r, up }) => [r.number, r.handOff, up], ({ r, up }) => drawCard(r, up));

  const drawCard = (r: TermRow, up: boolean): HTMLElement => {
    const ask = r.handOff!;
    const answer = (a: 'done' | 'not_now') => (): void => p.conn.send({ t: 'term_answer', term: r.term, answer: a });
    return h('article', { class: 'handoff-card', 'data-term-handoff': String(r.term), 'data-seat': r.seat, 'aria-label': `terminal hand-off · terminal ${r.number}` },
      h('h2', { class: 'card-title' }, `terminal hand-off · terminal ${r.number}`),
      h('p', { class: 'card-seat' }, r.seat),
      h('p', { class: 'card-words' }, ask.reason),
      ask.hidden ? h('p', { class: 'card-note' }, 'typing is hidden') : null,
      up
        ? h('p', { class: 'card-open' }, 'The terminal is open over the window; answer on its bar.')
        : h('div', { class: 'card-actions' },
          h('button', { type: 'button', class: 'card-open-terminal', onclick: () => { void p.seats.raise(r.seat); } }, 'Open terminal'),
          h('button', { type: 'button', class: 'card-done', onclick: answer('done') }, 'Done'),
          h('button', { type: 'button', class: 'card-not-now', onclick: answer('not_now') }, 'Not now')));
  };

  p.seats.onChange(() => {
    const list = p.seats.list();
    const names = seatNames(list.map((s) => s.seat));
    place(p.slot, list.map((s, i) => {
      let r = rows.get(s.seat);
      if (!r) {
        r = new SeatRow(s.seat, () => { void p.seats.raise(s.seat); });
        rows.set(s.seat, r);
      }
      return r.draw(s, i === 0, list.length > 1 ? names(s.seat) : '', p.seats.raisable(s));
    }));
    cards.draw(p.cards, p.seats.handOffs().map((r) => ({ r, up: p.seats.of(r.seat)?.up ?? false })));
  });
}
