/**
 * The strip's terminal row: this seat's terminal, in the words of its state: a command is running,
 * waiting for you, a password is wanted, another client has the keyboard, exited, idle, off. On a page for a seat, the row is a door even
 * before a terminal runs (off; raising it starts one) while the seat has a session, and a note
 * while it has none. Raising it opens the terminal surface under the takeover's bar; the xterm.js chunk
 * is fetched on that first raise only. A terminal hand-off also shows as a card in the chat:
 * terminal hand-off · terminal N, the agent's reason, typing is hidden when it is, and Open
 * terminal, Done and Not now; once the surface is up the card leaves the answers to its bar.
 */
import { TERM_STATE, type TermRow } from '../../../src/shared/terminal.js';
import { KeptElements, fill, h, place } from '../dom.js';
import type { SurfaceConn } from '../connection.js';
import type { Takeover, TakeoverSurface } from '../takeover.js';
import { raiseTerminal, type TerminalSurfaceHandle } from './door.js';

/** The row's words for a terminal's state as the server pushed it. */
export function rowWords(row: TermRow | null, holdingHere: boolean): string {
  if (!row) return 'off';
  if (row.state === 'idle' && row.held) return holdingHere ? TERM_STATE.youHaveControl : TERM_STATE.otherHasKeyboard;
  if (row.state === 'a command is running') return row.held && !holdingHere ? TERM_STATE.otherHasKeyboard : row.state;
  return row.state;
}

export interface TerminalRowParts {
  conn: SurfaceConn;
  slot: HTMLElement;
  takeover: Takeover;
  /** The seat this page speaks for; without one, the first terminal the org reports. */
  seat: string | null;
  /** A refusal or failure said on the strip. */
  say(sentence: string): void;
  /** Where the chat shows a terminal hand-off's card. */
  cards: HTMLElement;
}

export function mountTerminalRow(p: TerminalRowParts): void {
  let row: TermRow | null = null;
  /** This seat has had a terminal while the page was open: once it ends the row stays, as off. */
  let seen = false;
  /** This page's seat has a live session: its row is a door even before a terminal runs. */
  let seatLive = false;
  let holdingHere = false;
  let handle: TerminalSurfaceHandle | null = null;
  let surface: TakeoverSurface | null = null;

  // The row's button and the card are kept while what they show is unchanged (the server pushes
  // the terminal's state often): a push between a press and its release must not lose the click.
  const rowName = h('span', { class: 'row-name' });
  const rowState = h('span', { class: 'row-state' });
  const rowButton = h('button', { class: 'strip-row', type: 'button', id: 'terminal-row', onclick: () => { void raise(); } }, rowName, rowState);
  const card = new KeptElements<{ term: number; n: number; ask: NonNullable<TermRow['handOff']>; up: boolean }>(
    (c) => String(c.term), (c) => c, (c) => drawCard(c.term, c.n, c.ask, c.up));

  const renderCard = (): void => {
    const ask = row?.handOff;
    const up = surface !== null && p.takeover.shown === surface;
    card.draw(p.cards, row && ask ? [{ term: row.term, n: row.number, ask, up }] : []);
  };

  const drawCard = (term: number, n: number, ask: NonNullable<TermRow['handOff']>, up: boolean): HTMLElement => {
    const answer = (a: 'done' | 'not_now') => (): void => p.conn.send({ t: 'term_answer', term, answer: a });
    return h('article', { class: 'handoff-card', 'data-term-handoff': String(term), 'aria-label': `terminal hand-off · terminal ${n}` },
      h('h2', { class: 'card-title' }, `terminal hand-off · terminal ${n}`),
      h('p', { class: 'card-words' }, ask.reason),
      ask.hidden ? h('p', { class: 'card-note' }, 'typing is hidden') : null,
      up
        ? h('p', { class: 'card-open' }, 'The terminal is open over the window; answer on its bar.')
        : h('div', { class: 'card-actions' },
          h('button', { type: 'button', class: 'card-open-terminal', onclick: () => { void raise(); } }, 'Open terminal'),
          h('button', { type: 'button', class: 'card-done', onclick: answer('done') }, 'Done'),
          h('button', { type: 'button', class: 'card-not-now', onclick: answer('not_now') }, 'Not now')));
  };

  const render = (): void => {
    renderCard();
    if (!row && !seen && !seatLive) {
      // A seat with no session: a terminal opened there would have no record to draw it for.
      if (p.seat) fill(p.slot, h('p', { class: 'strip-row strip-note', id: 'terminal-row', 'data-state': 'no session' },
        h('span', { class: 'row-name' }, 'terminal'), h('span', { class: 'row-state' }, 'the seat has no session yet - start it first')));
      else fill(p.slot);
      return;
    }
    const words = rowWords(row, holdingHere);
    const seat = row?.seat ?? p.seat ?? '';
    rowButton.dataset.state = words;
    rowButton.title = row ? `terminal ${row.number} of ${seat}` : `no terminal runs for ${seat}; raising it starts one`;
    rowName.textContent = row ? `terminal ${row.number}` : 'terminal';
    rowState.textContent = words;
    place(p.slot, [rowButton]);
  };

  const raise = async (): Promise<void> => {
    const seat = row?.seat ?? p.seat;
    if (!seat) return;
    if (surface && p.takeover.shown === surface) return;
    const actions = h('div', { class: 'term-actions' });
    const body = h('div', { class: 'term-stage' });
    const mine: TakeoverSurface = {
      kind: 'terminal', nav: h('div'), actions, body,
      takeKeys: () => { handle?.term.focus(); return handle !== null; },
      lowered: () => { handle?.close(); handle = null; surface = null; holdingHere = false; render(); },
    };
    surface = mine;
    p.takeover.raise(mine, row ? `terminal ${row.number}` : 'terminal');
    renderCard();
    const opened = await raiseTerminal(body, p.conn, {
      seat,
      bar: { actions, setTitle: (t) => { if (p.takeover.shown === mine) p.takeover.setTitle(t); } },
      leave: () => { if (p.takeover.shown === mine) p.takeover.lower(); },
      toBar: () => { if (p.takeover.shown === mine) p.takeover.chordFromPage(); },
      onFail: (m) => { p.say(m); },
    });
    if (p.takeover.shown !== mine) { opened?.close(); return; }
    if (!opened) { p.takeover.lower(); return; }
    handle = opened;
    p.takeover.keysToPage();
  };

  p.conn.onMessage((m) => {
    if (m.t === 'terminals') {
      const rows = m.rows as TermRow[];
      const next = (p.seat ? rows.find((r) => r.seat === p.seat) : rows[0]) ?? null;
      if (next) seen = true;
      seatLive = p.seat !== null && ((m.seats as string[] | undefined) ?? []).includes(p.seat);
      row = next;
      render();
    } else if (m.t === 'term_state' && row && m.term === row.term) {
      holdingHere = m.role === 'holder';
      render();
    }
  });
}
