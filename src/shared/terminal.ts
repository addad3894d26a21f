/**
 * The terminal's control messages on the viewer socket, and the words its states are drawn in.
 * Output itself crosses as kind-4 binary frames (see protocol.ts); a frame flagged
 * FRAME_FLAG_KEYFRAME is a repaint: the client resets and draws it, later frames continue it.
 */

/** Output bytes a client processes before it acknowledges them; it also acks when output pauses. */
export const TERM_ACK_EVERY_BYTES = 64 * 1024;

/** Frames held while the renderer loads, bytes: past this the client asks for a fresh repaint instead. */
export const TERM_HOLD_MAX_BYTES = 1024 * 1024;

/** Terminal size bounds a viewer may ask for, cells. */
export const TERM_COLS_MIN = 2;
export const TERM_COLS_MAX = 500;
export const TERM_ROWS_MIN = 1;
export const TERM_ROWS_MAX = 300;

/** The state line's words, written once for the server, the client and the tests. */
export const TERM_STATE = {
  opening: 'opening the terminal',
  running: 'the agent is running a command',
  waitingForYou: 'waiting for you',
  otherHasKeyboard: 'another client has the keyboard',
  agentTookKeyboard: 'the agent took the keyboard',
  agentWaiting: 'the agent is waiting for input',
  password: 'a password is wanted',
  exited: 'the shell exited',
  closed: 'the terminal closed',
  youHaveControl: 'you have control',
  viewOnly: 'view only',
  connectionDown: 'the connection is down - reconnecting',
} as const;

export interface TermHandOffCard {
  reason: string;
  /** The program is reading a secret: typing is hidden. */
  hidden: boolean;
}

/** Messages a viewer sends about a terminal. `term` is the terminal id from `term_view`. */
export type TermClientMessage =
  | { t: 'term_attach'; seat: string; cols: number; rows: number; id?: number }
  | { t: 'term_input'; term: number; data: string; id?: number }
  | { t: 'term_resize'; term: number; cols: number; rows: number; id?: number }
  | { t: 'term_control'; term: number; take: boolean; id?: number }
  | { t: 'term_detach'; term: number; id?: number }
  | { t: 'term_answer'; term: number; answer: 'done' | 'not_now'; id?: number }
  /** Output bytes (kind-4 payloads, repaints included) the client has drawn since its last ack. */
  | { t: 'term_ack'; term: number; bytes: number; id?: number }
  /** The client lost its place (a gap in seq, or the hold bound): send a fresh repaint. */
  | { t: 'term_repaint'; term: number; id?: number };

/** Messages the server sends about a terminal. */
export type TermServerMessage =
  | { t: 'term_view'; term: number; number: number; seat: string; shell: string; cwd: string; cols: number; rows: number; id?: number }
  | {
      t: 'term_state'; term: number; role: 'holder' | 'watcher'; state: string;
      /** A one-off sentence about a change, e.g. who took the keyboard. */
      notice?: string;
      handOff: TermHandOffCard | null; busy: boolean; password: boolean; exited: boolean; closed: boolean;
      /** The shell's working directory now: the bar's title follows a `cd`. */
      cwd?: string;
    }
  | { t: 'term_closed'; term: number; message: string }
  /**
   * Every terminal of the org, for the strip: pushed when one opens, closes or changes state, and
   * when a seat's session starts or ends. `seats`: the org's seats with a live session (a strip row
   * is a door there even before a terminal runs).
   */
  | { t: 'terminals'; rows: TermRow[]; seats: string[] };

export interface TermRow {
  term: number;
  number: number;
  seat: string;
  /** The strip's words: a command is running, waiting for you, a password is wanted, exited, idle. */
  state: string;
  handOff: TermHandOffCard | null;
  viewers: number;
  /** A person's client holds the keyboard (the holder's own client knows it is the one). */
  held: boolean;
}

/** The kind-4 header's fields (see protocol.ts: kind u8, flags u8, hdrlen u16, terminal id u32, seq u32). */
export interface TermHeader { kind: number; flags: number; hdrlen: number; id: number; seq: number }

export function readTermHeader(view: DataView): TermHeader {
  return { kind: view.getUint8(0), flags: view.getUint8(1), hdrlen: view.getUint16(2, true), id: view.getUint32(4, true), seq: view.getUint32(8, true) };
}
