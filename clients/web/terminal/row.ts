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
import { KeptElements, h } from '../dom.js';
import type { SurfaceConn } from '../connection.js';
import { seatLabel } from './words.js';
import type { SeatTerminal, TerminalSeats } from './seats.js';

export { rowWords } from './words.js';

export interface TerminalRowParts {
  conn: SurfaceConn;
  slot: HTMLElement;
  seats: TerminalSeats;
  /** Where the home shows a terminal hand-off's card. */
  cards: HTMLElement;
}

interface DrawnRow { s: SeatTerminal; first: boolean; named: boolean; door: boolean }

export function mountTerminalRows(p: TerminalRowParts): void {
  // Rows and cards are kept while what they show is unchanged (the server pushes the terminal's
  // state often): a push between a press and its release must not lose the click.
  const rows = new KeptElements<DrawnRow>(
    (d) => d.s.seat,
    (d) => [d.s.row?.number ?? null, d.s.words, d.first, d.named, d.door],
    (d) => drawRow(d));
  const cards = new KeptElements<{ r: TermRow; up: boolean }>(
    ({ r }) => String(r.term), ({ r, up }) => [r.number, r.handOff, up], ({ r, up }) => drawCard(r, up));

  const drawRow = ({ s, first, named, door }: DrawnRow): HTMLElement => {
    const id = first ? 'terminal-row' : undefined;
    if (!door) {
      // A seat with no session: a terminal opened there would have no record to draw it for.
      return h('p', { class: 'strip-row strip-note', id, 'data-seat': s.seat, 'data-state': 'no session' },
        h('span', { class: 'row-name' }, 'terminal'), h('span', { class: 'row-state' }, 'the seat has no session yet - start it first'));
    }
    return h('button', {
      class: 'strip-row', type: 'button', id, 'data-seat': s.seat, 'data-state': s.words,
      title: s.row ? `terminal ${s.row.number} of ${s.seat}` : `no terminal runs for ${s.seat}; raising it starts one`,
      onclick: () => { void p.seats.raise(s.seat); },
    },
    named ? h('span', { class: 'row-seat' }, seatLabel(s.seat)) : null,
    h('span', { class: 'row-name' }, s.row ? `terminal ${s.row.number}` : 'terminal'),
    h('span', { class: 'row-state' }, s.words));
  };

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
    const named = list.length > 1;
    rows.draw(p.slot, list.map((s, i) => ({ s, first: i === 0, named, door: p.seats.raisable(s) })));
    cards.draw(p.cards, p.seats.handOffs().map((r) => ({ r, up: p.seats.of(r.seat)?.up ?? false })));
  });
}
