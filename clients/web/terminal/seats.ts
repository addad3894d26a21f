/**
 * Every seat's terminal as the server pushes it (`terminals` {rows, seats}), and the one surface
 * this page raises for one of them at a time. The strip's rows and the home's cards both read it:
 * a seat is listed while it has a terminal, a live session, or had a terminal while the page was
 * open (then it stays, as off); the page's own seat (`?seat=`) is listed first, even with neither.
 */
import type { TermRow } from '../../../src/shared/terminal.js';
import { h } from '../dom.js';
import type { SurfaceConn } from '../connection.js';
import type { Takeover, TakeoverSurface } from '../takeover.js';
import { raiseTerminal, type TerminalSurfaceHandle } from './door.js';
import { rowWords } from './words.js';

/** One seat's terminal as the strip and the home draw it. */
export interface SeatTerminal {
  seat: string;
  /** Its terminal, or null while none runs. */
  row: TermRow | null;
  /** The seat has a live session: raising starts a terminal when none runs. */
  live: boolean;
  /** The row's words for the state (off while none runs). */
  words: string;
  /** The terminal is up in this page's takeover. */
  up: boolean;
}

export interface TerminalSeatsParts {
  conn: SurfaceConn;
  takeover: Takeover;
  /** The seat this page speaks for: listed first. */
  seat: string | null;
  /** A refusal or failure said on the strip. */
  say(sentence: string): void;
}

export class TerminalSeats {
  private rows: TermRow[] = [];
  private live = new Set<string>();
  /** Seats in the order they were first reported, so a push never reorders the rows under a press. */
  private readonly order = new Set<string>();
  private readonly seen = new Set<string>();
  private listeners = new Set<() => void>();
  /** The server has said which seats there are: until then nothing is drawn, so no row is a guess a press could land on. */
  private reported = false;
  /** The seat whose terminal is raised here, its surface and the open terminal once attached. */
  private raisedSeat: string | null = null;
  private surface: TakeoverSurface | null = null;
  private handle: TerminalSurfaceHandle | null = null;
  private holdingHere = false;

  constructor(private readonly p: TerminalSeatsParts) {
    if (p.seat) this.order.add(p.seat);
    p.conn.onMessage((m) => {
      if (m.t === 'terminals') {
        this.reported = true;
        this.rows = (m.rows as TermRow[] | undefined) ?? [];
        this.live = new Set((m.seats as string[] | undefined) ?? []);
        for (const r of this.rows) { this.order.add(r.seat); this.seen.add(r.seat); }
        for (const s of this.live) this.order.add(s);
        this.emit();
      } else if (m.t === 'term_state') {
        const raised = this.raisedSeat ? this.rowOf(this.raisedSeat) : null;
        if (raised && m.term === raised.term) { this.holdingHere = m.role === 'holder'; this.emit(); }
      }
    });
  }

  onChange(cb: () => void): void { this.listeners.add(cb); cb(); }

  /** Redraws after the takeover was raised or lowered. */
  refresh(): void { this.emit(); }

  /** The seats to draw, the page's own first. */
  list(): SeatTerminal[] {
    const out: SeatTerminal[] = [];
    if (!this.reported) return out;
    for (const seat of this.order) {
      const row = this.rowOf(seat);
      const live = this.live.has(seat);
      if (!row && !live && !this.seen.has(seat) && seat !== this.p.seat) continue;
      const up = this.raisedSeat === seat && this.surface !== null && this.p.takeover.shown === this.surface;
      out.push({ seat, row, live, words: rowWords(row, up && this.holdingHere), up });
    }
    return out;
  }

  /** The seat's terminal as drawn, or null when it is not listed. */
  of(seat: string): SeatTerminal | null { return this.list().find((s) => s.seat === seat) ?? null; }

  /** Whether raising `seat` opens something: a terminal runs, it ran here, or the session can start one. */
  raisable(s: SeatTerminal): boolean { return s.row !== null || s.live || this.seen.has(s.seat); }

  /** Every terminal hand-off waiting, with its seat. */
  handOffs(): TermRow[] { return this.rows.filter((r) => r.handOff); }

  /** Raises the seat's terminal under the takeover's bar; the server starts one when none runs. */
  async raise(seat: string): Promise<void> {
    const takeover = this.p.takeover;
    if (this.surface && takeover.shown === this.surface && this.raisedSeat === seat) return;
    const row = this.rowOf(seat);
    const actions = h('div', { class: 'term-actions' });
    const body = h('div', { class: 'term-stage' });
    const mine: TakeoverSurface = {
      kind: 'terminal', nav: h('div'), actions, body,
      takeKeys: () => { this.handle?.term.focus(); return this.handle !== null; },
      lowered: () => {
        if (this.surface !== mine) return;
        this.handle?.close();
        this.handle = null; this.surface = null; this.raisedSeat = null; this.holdingHere = false;
        this.emit();
      },
    };
    this.surface = mine;
    this.raisedSeat = seat;
    this.holdingHere = false;
    takeover.raise(mine, row ? `terminal ${row.number}` : 'terminal');
    this.emit();
    const opened = await raiseTerminal(body, this.p.conn, {
      seat,
      bar: { actions, setTitle: (t) => { if (takeover.shown === mine) takeover.setTitle(t); } },
      leave: () => { if (takeover.shown === mine) takeover.lower(); },
      toBar: () => { if (takeover.shown === mine) takeover.chordFromPage(); },
      onFail: (m) => { this.p.say(m); },
    });
    if (takeover.shown !== mine) { opened?.close(); return; }
    if (!opened) { takeover.lower(); return; }
    this.handle = opened;
    takeover.keysToPage();
  }

  private rowOf(seat: string): TermRow | null { return this.rows.find((r) => r.seat === seat) ?? null; }

  private emit(): void { for (const cb of this.listeners) cb(); }
}
