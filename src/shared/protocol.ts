/**
 * The viewer socket's wire format, defined once for the server, the web client and the bench.
 *
 * Binary messages carry pixels or terminal bytes behind a fixed little-endian header:
 *
 *   browser frame (kind 1), FRAME_HEADER_BYTES = 28
 *   +------+-------+--------+------+-----+---+---+---+---+--------+--------+----------+
 *   | kind | flags | hdrlen |  tab | seq | x | y | w | h | frameW | frameH | baseSeq  | WebP bytes…
 *   |  u8  |  u8   |  u16   |  u32 | u32 |u16|u16|u16|u16|  u16   |  u16   |   u32    |
 *   +------+-------+--------+------+-----+---+---+---+---+--------+--------+----------+
 *   0      1       2        4      8     12  14  16  18  20       22       24         28
 *
 *   terminal output (kind 4), TERM_HEADER_BYTES = 12
 *   +------+-------+--------+-------------+-----+
 *   | kind | flags | hdrlen | terminal id | seq | the shell's own bytes…
 *   |  u8  |  u8   |  u16   |     u32     | u32 |
 *   +------+-------+--------+-------------+-----+
 *
 *   page sound (kind 5), AUDIO_HEADER_BYTES = 20; to the tab's controller only
 *   +------+----------+--------+-------+-----+------+-----------+
 *   | kind | channels | hdrlen | frame | seq | rate | stamp ms  | PCM s16le, interleaved…
 *   |  u8  |    u8    |  u16   |  u32  | u32 |  u32 |    u32    |
 *   +------+----------+--------+-------+-----+------+-----------+
 *   0      1          2        4       8     12     16          20
 *   `frame` is the tab's frame id (as its pictures carry); `stamp` the server's wall clock at
 *   capture, ms modulo 2^32.
 *
 * Control messages are msgpackr-encoded objects with a `t` field, both ways.
 */
import { Packr, Unpackr } from 'msgpackr';
import type { ActivityEvent } from './activity.js';
import { CONTROL_NESTING_MAX } from './limits.js';
import type { TermClientMessage, TermServerMessage } from './terminal.js';

export const FRAME_KIND_BROWSER = 1;
export const FRAME_KIND_TERMINAL = 4;
export const FRAME_KIND_AUDIO = 5;

/**
 * Frame flag: a full picture that needs no earlier frame. It may come in parts: messages of the
 * same seq, each a w×h piece drawn at (x, y), sent in one write, that together cover frameW×frameH
 * (an idle encoder sends a big picture as strips). A client shows the frame once its parts are drawn.
 */
export const FRAME_FLAG_KEYFRAME = 1;
/** Frame flag: a patch drawn at (x, y) over the frame whose seq is baseSeq; one frame's bands are patches of the same seq. */
export const FRAME_FLAG_PATCH = 2;

export const FRAME_HEADER_BYTES = 28;
export const FRAME_OFF_KIND = 0;
export const FRAME_OFF_FLAGS = 1;
export const FRAME_OFF_HDRLEN = 2;
export const FRAME_OFF_ID = 4;
export const FRAME_OFF_SEQ = 8;
export const FRAME_OFF_X = 12;
export const FRAME_OFF_Y = 14;
export const FRAME_OFF_W = 16;
export const FRAME_OFF_H = 18;
export const FRAME_OFF_FRAME_W = 20;
export const FRAME_OFF_FRAME_H = 22;
export const FRAME_OFF_BASE_SEQ = 24;

export const TERM_HEADER_BYTES = 12;

export interface FrameHeader {
  kind: number;
  flags: number;
  id: number;
  seq: number;
  x: number;
  y: number;
  w: number;
  h: number;
  frameW: number;
  frameH: number;
  baseSeq: number;
}

export function writeFrameHeader(view: DataView, h: FrameHeader): void {
  view.setUint8(FRAME_OFF_KIND, h.kind);
  view.setUint8(FRAME_OFF_FLAGS, h.flags);
  view.setUint16(FRAME_OFF_HDRLEN, FRAME_HEADER_BYTES, true);
  view.setUint32(FRAME_OFF_ID, h.id, true);
  view.setUint32(FRAME_OFF_SEQ, h.seq, true);
  view.setUint16(FRAME_OFF_X, h.x, true);
  view.setUint16(FRAME_OFF_Y, h.y, true);
  view.setUint16(FRAME_OFF_W, h.w, true);
  view.setUint16(FRAME_OFF_H, h.h, true);
  view.setUint16(FRAME_OFF_FRAME_W, h.frameW, true);
  view.setUint16(FRAME_OFF_FRAME_H, h.frameH, true);
  view.setUint32(FRAME_OFF_BASE_SEQ, h.baseSeq, true);
}

export function readFrameHeader(view: DataView): FrameHeader {
  return {
    kind: view.getUint8(FRAME_OFF_KIND),
    flags: view.getUint8(FRAME_OFF_FLAGS),
    id: view.getUint32(FRAME_OFF_ID, true),
    seq: view.getUint32(FRAME_OFF_SEQ, true),
    x: view.getUint16(FRAME_OFF_X, true),
    y: view.getUint16(FRAME_OFF_Y, true),
    w: view.getUint16(FRAME_OFF_W, true),
    h: view.getUint16(FRAME_OFF_H, true),
    frameW: view.getUint16(FRAME_OFF_FRAME_W, true),
    frameH: view.getUint16(FRAME_OFF_FRAME_H, true),
    baseSeq: view.getUint32(FRAME_OFF_BASE_SEQ, true),
  };
}

export function writeTermHeader(view: DataView, id: number, seq: number): void {
  view.setUint8(0, FRAME_KIND_TERMINAL);
  view.setUint8(1, 0);
  view.setUint16(2, TERM_HEADER_BYTES, true);
  view.setUint32(4, id, true);
  view.setUint32(8, seq, true);
}

export const AUDIO_HEADER_BYTES = 20;
export const AUDIO_OFF_CHANNELS = 1;
export const AUDIO_OFF_FRAME = 4;
export const AUDIO_OFF_SEQ = 8;
export const AUDIO_OFF_RATE = 12;
export const AUDIO_OFF_STAMP = 16;

export interface AudioHeader { channels: number; frame: number; seq: number; rate: number; stamp: number }

export function writeAudioHeader(view: DataView, h: AudioHeader): void {
  view.setUint8(0, FRAME_KIND_AUDIO);
  view.setUint8(AUDIO_OFF_CHANNELS, h.channels);
  view.setUint16(FRAME_OFF_HDRLEN, AUDIO_HEADER_BYTES, true);
  view.setUint32(AUDIO_OFF_FRAME, h.frame, true);
  view.setUint32(AUDIO_OFF_SEQ, h.seq, true);
  view.setUint32(AUDIO_OFF_RATE, h.rate, true);
  view.setUint32(AUDIO_OFF_STAMP, h.stamp >>> 0, true);
}

export function readAudioHeader(view: DataView): AudioHeader {
  return {
    channels: view.getUint8(AUDIO_OFF_CHANNELS),
    frame: view.getUint32(AUDIO_OFF_FRAME, true),
    seq: view.getUint32(AUDIO_OFF_SEQ, true),
    rate: view.getUint32(AUDIO_OFF_RATE, true),
    stamp: view.getUint32(AUDIO_OFF_STAMP, true),
  };
}

/** A tab row as the strip and the picker draw it. */
export interface TabRow {
  /** The host's number for the tab; a fresh host starts again at 1. */
  number: number;
  /** Stable id that outlives renumbering: what a hand-off names. */
  pageId: string;
  title: string;
  url: string;
  /** The owning seat, org/project/label. */
  owner: string;
  state: 'in use' | 'idle' | 'held';
  dialog?: { kind: string; message: string };
  /** False while the page has no renderer: it crashed, or was unloaded to keep the hidden-tab budget (its next use reloads it). */
  loaded: boolean;
  /** The page plays sound now (whether or not anyone hears it). */
  audible?: boolean;
}

/**
 * Messages a viewer sends. Every one has `t`; `id` (optional) is echoed in the answer or error.
 * A viewer watches at most one tab at a time: an attach replaces what the connection watched.
 * The server checks each against its kind's schema before anything serves it; a kind not listed
 * here is answered as unknown.
 */
export type ClientMessage =
  /** The token, when it did not come in the socket URL's `?token=`. */
  | { t: 'hello'; token: string; id?: number }
  /**
   * Subscribe to a profile's tab list (the seat's profile, else the org's own); `tabs` pushes follow.
   * `every`: the org's other profiles' lists too (the home's seat cards), each pushed with `also`.
   */
  | { t: 'tabs'; seat?: string; every?: boolean; id?: number }
  /** Watch a tab by number or page id (else the profile's first tab), with this surface's size in CSS px. */
  | { t: 'attach'; tab?: number; pageId?: string; seat?: string; w: number; h: number; id?: number }
  | { t: 'detach'; id?: number }
  /** This surface's size changed, CSS px. */
  | { t: 'resize'; w: number; h: number; id?: number }
  /** Take (true) or release (false) the controller role on the watched tab. */
  | { t: 'control'; take: boolean; id?: number }
  /** The page's own history, one step; the controller's only. */
  | { t: 'nav'; dir: 'back' | 'forward'; id?: number }
  /** A gesture, in this surface's coordinates; the controller's only. */
  | { t: 'input'; ev: InputEvent; id?: number }
  | { t: 'ping'; id?: number }
  /** Subscribe to who drove what: an `activity` list answers, then each new act is pushed. */
  | { t: 'activity'; id?: number }
  /** This viewer dropped its picture (its decoder fell behind): patches stop until a fresh keyframe, which the relay asks for. */
  | { t: 'keyframe'; id?: number }
  /**
   * The controller's answer to a page's file chooser (`id` from file_chooser): the picked files,
   * each base64 in this one message, or dismiss. Past FILE_CHOOSER_MAX_FILES / _MAX_BYTES the
   * server dismisses the chooser rather than hand over part of the answer. A client that finds
   * the pick past them itself sends dismiss with `picked` (what the person chose), so the
   * server's sentence names it without the bytes crossing.
   */
  | { t: 'file_chooser_answer'; chooser: string; files?: PickedFile[]; dismiss?: boolean; picked?: { files: number; bytes: number }; id?: number }
  /** The tabs this home shows on screen now, for their live thumbnails; an empty list while the page is hidden. */
  | { t: 'thumbs'; pageIds: string[]; id?: number }
  /** The parked hand-offs this viewer's credential covers: a `handoffs` list answers. */
  | { t: 'handoffs'; id?: number }
  /** A person's answer to a parked hand-off (`handoff`, its id in the list), with an optional note. */
  | { t: 'answer'; handoff: string; answer: 'done' | 'not_now' | 'feedback'; note?: string; id?: number }
  /** A hand-off link's page is still open: the tab stays held while these come. */
  | { t: 'heartbeat'; id?: number }
  | TermClientMessage;

/** Every kind of message a viewer may send. */
export type ClientMessageKind = ClientMessage['t'];

/** The message of one kind, narrowed. */
export type ClientMessageOf<K extends ClientMessageKind> = Extract<ClientMessage, { t: K }>;

/** A control message as it arrived: its kind, and fields nothing has checked yet. */
export type UncheckedMessage = { t: string; [k: string]: unknown };

/** One file of a file-chooser answer: its name, its MIME type if the picker gave one, its bytes as base64. */
export interface PickedFile { name: string; type?: string; data: string }

/**
 * A viewer's gesture. Points are in the viewer's surface coordinates (CSS px of the box it reported
 * in attach/resize); the server scales them into the page's viewport.
 */
export type InputEvent =
  | { type: 'mouse'; action: 'down' | 'up' | 'move'; x: number; y: number; button?: 'left' | 'middle' | 'right' | 'none'; buttons?: number; clickCount?: number; modifiers?: number }
  | { type: 'wheel'; x: number; y: number; dx: number; dy: number; modifiers?: number }
  /** A named key (Enter, Tab, ArrowLeft, Escape, Backspace, a chord's letter with modifiers), as KeyboardEvent.key/code. */
  | { type: 'key'; action: 'down' | 'up'; key: string; code?: string; modifiers?: number }
  /** Printable text, a paste or an IME commit: inserted as text. */
  | { type: 'text'; text: string };

/** Modifier bits, as CDP's Input domain numbers them. */
export const MOD_ALT = 1;
export const MOD_CTRL = 2;
export const MOD_META = 4;
export const MOD_SHIFT = 8;

/** Messages the server sends. */
/** An agent's recording of the viewed tab: its seat, the file's size (the page's layout meanwhile), and the sentence a viewer shows. */
export interface ViewRecording { by: string; width: number; height: number; message: string }

export type ServerMessage =
  /** Sent first on every socket: this viewer's id, its org, whether its credential may take control, whether it is a hand-off link, and `[client] theme`. */
  | { t: 'welcome'; viewerId: number; org: string; mayControl: boolean; link: boolean; theme?: 'system' | 'dark' | 'light' }
  | { t: 'error'; message: string; for?: string; id?: number }
  /** A profile's tab list; pushed on every change to subscribers. host: connected / idle (up, no driver) / none; `also`: one of the org's other profiles (a `tabs` with `every`). */
  | { t: 'tabs'; profile: string; host: 'connected' | 'idle' | 'none'; closingInMinutes?: number; tabs: TabRow[]; also?: true }
  /**
   * What this viewer watches and who holds the role, pushed to every viewer of the tab on any change.
   * `you` is this viewer's id; `controller` the controller's id or null; width×height the page's layout;
   * `frame` the id the tab's binary frames carry (unique across hosts). `recording`: set while an
   * agent records the tab, whose layout is then the file's own (every viewer sees it with bars).
   */
  | { t: 'view'; tab: number; pageId: string; profile: string; you: number; controller: number | null; width: number; height: number; title: string; url: string; frame: number; recording?: ViewRecording }
  /** The page's own history: whether an entry exists each way. */
  | { t: 'history'; tab: number; back: boolean; forward: boolean }
  /** The watched tab is gone (closed, or its host died): the sentence says why. */
  | { t: 'gone'; tab: number; message: string }
  /** To the controller, after its presses and focus-moving keys: whether the page's focused element takes typing (a phone's keyboard follows it). */
  | { t: 'focus'; tab: number; editable: boolean }
  /** To the controller, after its copy or cut chord: the text the page's selection held, for the person's own clipboard. */
  | { t: 'copied'; tab: number; text: string }
  | { t: 'pong'; id?: number }
  /**
   * The page on the tab this viewer controls opened its file chooser: the client opens the
   * platform's picker and answers with file_chooser_answer. `accept` is the input's own filter.
   */
  | { t: 'file_chooser'; chooser: string; tab: number; pageId: string; multiple: boolean; accept: string }
  /** The chooser was answered (by this viewer, the agent, or the page going away): `message` says how. */
  | { t: 'file_chooser_end'; chooser: string; tab: number; pageId: string; outcome: 'picked' | 'dismissed' | 'gone'; message: string }
  /** A download finished on the tab this viewer controls: `url` fetches its bytes (a signed, expiring link). */
  | { t: 'download'; download: string; tab: number; pageId: string; name: string; size: number; url: string }
  /** A download on the tab this viewer controls was not handed over (past DOWNLOAD_MAX_BYTES, or failed): the sentence says why. */
  | { t: 'download_refused'; tab: number; pageId: string; name: string; message: string }
  /** Finished downloads the profile's backlog dropped (it holds DOWNLOAD_BACKLOG_MAX): names the profile, not a tab; `dropped` their download ids. */
  /** Who drove what: the acts this viewer's credential covers, oldest first; `replace` on the answer to `activity` (the whole list), else new ones. */
  | { t: 'activity'; events: ActivityEvent[]; replace?: boolean }
  | { t: 'download_lost'; profile: string; count: number; max: number; title: string; message: string; dropped: string[] }
  /** A tab's live thumbnail (a small WebP), to the homes that name it in `thumbs`, each time it changed. */
  | { t: 'thumb'; pageId: string; webp: Uint8Array }
  /** The parked hand-offs this viewer's credential covers, pushed whenever one parks or ends (and in answer to `handoffs`). */
  | { t: 'handoffs'; asks: HandOffCard[]; id?: number }
  /** The person's answer to a hand-off reached its agent. */
  | { t: 'answered'; handoff: string; answer: 'done' | 'not_now' | 'feedback'; id?: number }
  | TermServerMessage;

/** A parked hand-off as the home lists it: its id (for `answer`), the asking seat, its page and words. */
export interface HandOffCard { id: string; seat: string; profile: string; pageId: string; tab: number; message: string }

const packr = new Packr({ useRecords: false, moreTypes: false });
const unpackr = new Unpackr({ useRecords: false, moreTypes: false });

/**
 * Encodes a control message into bytes of its own. msgpackr packs into a shared buffer that grows
 * to the largest message seen and is handed out as views; a view posted to another thread would
 * carry that whole buffer, so the message is copied out at its own size.
 */
export function encodeControl(msg: ServerMessage | ClientMessage): Uint8Array {
  return new Uint8Array(packr.pack(msg) as Uint8Array);
}

export type DecodeResult = { ok: true; msg: UncheckedMessage } | { ok: false; reason: string };

/**
 * A message from the server, as its own clients read it: decoded, and taken for the kind its `t`
 * names (the server wrote it); undefined for bytes that are no control message.
 */
export function decodeServerMessage(bytes: Uint8Array): ServerMessage | undefined {
  const d = decodeControl(bytes);
  return d.ok ? (d.msg as ServerMessage) : undefined;
}

/** Decodes a control message; never throws — a malformed one is a reason the sender is told. */
export function decodeControl(bytes: Uint8Array): DecodeResult {
  let value: unknown;
  try {
    value = unpackr.unpack(bytes);
  } catch {
    return { ok: false, reason: 'the message is not valid msgpack' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'a control message must be a map with a "t" field' };
  }
  const t = (value as { t?: unknown }).t;
  if (typeof t !== 'string' || t.length === 0 || t.length > 64) {
    return { ok: false, reason: 'a control message needs a "t" field naming its kind' };
  }
  if (nestedPast(value, CONTROL_NESTING_MAX)) {
    return { ok: false, reason: `a control message nests maps and arrays at most ${CONTROL_NESTING_MAX} levels deep` };
  }
  return { ok: true, msg: value as UncheckedMessage };
}

/** Whether `value` nests maps or arrays deeper than `max` levels; walked without recursion. */
function nestedPast(value: object, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    if (ArrayBuffer.isView(v)) continue;
    for (const child of Array.isArray(v) ? v : Object.values(v as object)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
