/**
 * What a viewer may say about a terminal: attach, type (only the keyboard holder), resize, take
 * or release control, answer a hand-off, acknowledge output, ask for a repaint, detach. Every
 * refusal is a sentence the client shows; nothing a viewer sends reaches the PTY unchecked. The
 * door (viewers.ts) has already refused kinds the credential does not list and fields its kind's
 * schema does not take; here each message's terminal or seat is checked against the seats the
 * credential covers.
 */
import type { ViewerHub, ViewerInfo } from '../viewers.js';
import { ForgeError } from '../../shared/errors.js';
import { parseSeat } from '../seat.js';
import { seatAllowed, viewerMayDo } from '../../shared/grants.js';
import { TERM_STATE } from '../../shared/terminal.js';
import type { PtyLink } from './pty-link.js';
import type { TerminalRecord } from './record.js';

/** What the viewers' terminal messages need of the terminal surface: its terminals, their viewers and the pushes those get. */
export interface TerminalViewerHost {
  readonly pty: PtyLink;
  /** The terminal by id; refused in words when none is open. */
  get(id: number): TerminalRecord;
  all(): TerminalRecord[];
  forSeat(seat: string): TerminalRecord | undefined;
  /** Whether an agent's MCP session holds the seat now: a person may start its terminal. */
  seatHasSession(seat: string): boolean;
  ensure(seat: string, cols?: number, rows?: number): Promise<TerminalRecord>;
  addViewer(r: TerminalRecord, viewer: number): void;
  removeViewer(r: TerminalRecord, viewer: number): void;
  requestRepaint(r: TerminalRecord, viewer: number): void;
  resize(r: TerminalRecord, cols: number, rows: number): void;
  setHolder(r: TerminalRecord, holder: number | null, lostNotice: string): void;
  /** The strip's terminal rows, to one viewer or to all. */
  pushRows(to?: number): void;
}

/** A terminal this viewer's credential covers: of its org, and of a seat its token names. */
function coveredTerm(s: TerminalViewerHost, viewer: ViewerInfo, term: number): TerminalRecord {
  const r = s.get(term);
  if (parseSeat(r.seat).org !== viewer.org || !seatAllowed(viewer.grant, r.seat)) throw new ForgeError('terminal', `terminal ${r.number} is not open`);
  return r;
}

function termOf(s: TerminalViewerHost, viewer: ViewerInfo, term: number): TerminalRecord {
  const r = coveredTerm(s, viewer, term);
  if (!r.viewers.has(viewer.id)) throw new ForgeError('terminal', `this client is not attached to terminal ${r.number}; attach first`);
  return r;
}

export function attachTerminalViewers(s: TerminalViewerHost, viewerHub: ViewerHub): void {
  viewerHub.on('term_attach', async (viewer, msg) => {
    const seat = parseSeat(msg.seat);
    if (seat.org !== viewer.org) throw new ForgeError('auth', `seat ${seat.key} is not in org ${viewer.org}`);
    if (!seatAllowed(viewer.grant, seat.key)) throw new ForgeError('auth', `this token does not cover seat ${seat.key}`);
    const { cols, rows } = msg;
    // A person opens the terminal of a seat that exists: one an agent's session made, or one running.
    // Starting a shell is a controller's deliberate act, and the number of shells is bounded.
    if (!s.forSeat(seat.key)) {
      if (!s.seatHasSession(seat.key)) throw new ForgeError('terminal', `seat ${seat.key} has no session here; its terminal can be opened once its agent connects`);
      if (!viewerMayDo(viewer.grant, 'term_start')) throw new ForgeError('not_controller', `no terminal runs for ${seat.key}; starting one needs a token that may take control`);
    }
    const r = await s.ensure(seat.key, cols, rows);
    // A person at the keyboard keeps their size; otherwise the newest viewer's size wins. The
    // viewers already attached are repainted at it, and this one is repainted as it attaches.
    if (r.holder === null) s.resize(r, cols, rows);
    s.addViewer(r, viewer.id);
    s.pushRows();
  });

  viewerHub.on('term_input', (viewer, msg) => {
    const r = termOf(s, viewer, msg.term);
    if (r.holder !== viewer.id) {
      throw new ForgeError('not_controller', r.holder === null
        ? 'view only: take control to type in this terminal'
        : `${TERM_STATE.otherHasKeyboard}; take control to type here`);
    }
    r.lastUse = Date.now();
    s.pty.post({ t: 'input', id: r.id, data: msg.data });
  });

  viewerHub.on('term_resize', (viewer, msg) => {
    const r = termOf(s, viewer, msg.term);
    const { cols, rows } = msg;
    // The holder's size stands: the watcher is drawn again at the terminal's own grid, which its
    // client takes from the repaint's view, rather than left at a width the shell is not writing for.
    if (r.holder !== null && r.holder !== viewer.id) { s.requestRepaint(r, viewer.id); return; }
    s.resize(r, cols, rows);
  });

  viewerHub.on('term_control', (viewer, msg) => {
    const r = termOf(s, viewer, msg.term);
    if (msg.take !== (r.holder === viewer.id)) viewerHub.acted(viewer, r.seat, msg.take ? 'took the keyboard' : 'released the keyboard', `terminal ${r.number}`);
    if (msg.take) {
      s.setHolder(r, viewer.id, TERM_STATE.otherHasKeyboard);
    } else if (r.holder === viewer.id) {
      s.setHolder(r, null, TERM_STATE.viewOnly);
    }
    r.lastUse = Date.now();
  });

  viewerHub.on('term_answer', (viewer, msg) => {
    // Attached or not: the chat's hand-off card answers without attaching.
    const r = coveredTerm(s, viewer, msg.term);
    if (!r.handOff) throw new ForgeError('hand_off', `terminal ${r.number} has no hand-off waiting`);
    r.handOff.answer(msg.answer);
    viewerHub.acted(viewer, r.seat, 'answered a terminal hand-off', `terminal ${r.number}`, msg.answer === 'done' ? 'Done' : 'Not now');
  });

  // An attached viewer's acks are kept by the relay, where its frames leave; the ones that reach
  // here (a terminal gone or not this viewer's, a bad count) are answered in words.
  viewerHub.on('term_ack', (viewer, msg) => {
    coveredTerm(s, viewer, msg.term);
  });

  viewerHub.on('term_repaint', (viewer, msg) => {
    const r = termOf(s, viewer, msg.term);
    s.requestRepaint(r, viewer.id);
  });

  viewerHub.on('term_detach', (viewer, msg) => {
    const r = termOf(s, viewer, msg.term);
    s.removeViewer(r, viewer.id);
  });

  // A client that connects learns the strip's terminal rows at once, not at the next change.
  viewerHub.onOpen((viewer) => s.pushRows(viewer.id));

  viewerHub.onClose((viewer) => {
    for (const id of viewerTerminals(s, viewer.id)) {
      try { s.removeViewer(s.get(id), viewer.id); } catch { /* ended meanwhile */ }
    }
  });
}

function viewerTerminals(s: TerminalViewerHost, viewer: number): number[] {
  return s.all().filter((r) => r.viewers.has(viewer)).map((r) => r.id);
}
