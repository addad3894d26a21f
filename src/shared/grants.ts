/**
 * What each credential may do, written once. forge has three kinds of credential:
 *
 * - **the agents' key** (`agent`): MCP, raw CDP and /metrics; never a viewer socket. It may be
 *   limited to seats (`acme/shop/*`).
 * - **a person's token** (`person`): the viewer socket, as a watcher or as a controller, for the
 *   whole org or limited to seats or to one tab; never MCP.
 * - **a hand-off link** (`link`): one page of one parked hand-off, for its person, until the
 *   hand-off is answered or the link expires; nothing else.
 *
 * The server checks every viewer message against `viewerMayDo` at the door, before any handler
 * runs, and the handlers check the seat or tab a message names against `seatAllowed` /
 * `tabAllowed`. Everything not listed here is refused. No Node, uWS or DOM imports here.
 */

/** A viewer's credential as the door read it. */
export type ViewerGrant =
  /** `id`: which token it came from (a prefix of its hash), so a revoked one is told from a new one of the same name. */
  | { kind: 'person'; id: string; name: string; role: 'watch' | 'control'; seats: string[] | null; tab?: string; exp?: number }
  | { kind: 'link'; handoff: string; exp: number };

/** An agent key's grant: which seats may connect with it. */
export interface AgentGrant { kind: 'agent'; id: string; name: string; seats: string[] | null; exp?: number }

/** What a watcher may send: look, follow, keep the socket alive. Nothing that acts on a page, a terminal or a hand-off. */
const WATCH_KINDS = [
  'ping', 'keyframe', 'tabs', 'attach', 'detach', 'resize', 'handoffs', 'heartbeat', 'activity', 'thumbs',
  'term_attach', 'term_resize', 'term_ack', 'term_repaint', 'term_detach',
] as const;

/** What a controller may send besides: drive the page and the terminal, answer hand-offs, start a seat's terminal. */
const CONTROL_KINDS = [
  ...WATCH_KINDS,
  'control', 'input', 'nav', 'file_chooser_answer', 'answer',
  'term_control', 'term_input', 'term_answer', 'term_start',
] as const;

/**
 * What a hand-off link may send: its one page (the handlers pin `attach`, `answer` and
 * `handoffs` to its own hand-off), driven by its person. No tab list, no terminal.
 */
const LINK_KINDS = [
  'ping', 'keyframe', 'attach', 'detach', 'resize', 'handoffs', 'heartbeat',
  'control', 'input', 'nav', 'file_chooser_answer', 'answer',
] as const;

const WATCH = new Set<string>(WATCH_KINDS);
const CONTROL = new Set<string>(CONTROL_KINDS);
const LINK = new Set<string>(LINK_KINDS);

/** Whether a viewer holding `g` may send a message of kind `kind`. */
export function viewerMayDo(g: ViewerGrant, kind: string): boolean {
  if (g.kind === 'link') return LINK.has(kind);
  return (g.role === 'control' ? CONTROL : WATCH).has(kind);
}

/** Known message kinds a grant refuses, for the refusal's words: an unknown kind is "unknown", not "refused". */
export function isViewerKind(kind: string): boolean {
  return CONTROL.has(kind) || LINK.has(kind);
}

/** The refusal a viewer reads when its credential does not cover a kind of message. */
export function refusedSentence(g: ViewerGrant, kind: string): string {
  if (g.kind === 'link') return `a hand-off link opens its own page only; "${kind}" is not part of it`;
  if (g.role === 'watch') return `this link is for watching; "${kind}" needs a token that may take control`;
  return `"${kind}" is not allowed with this token`;
}

/**
 * Whether a seat pattern covers a seat: `acme/shop/lead` exactly, `acme/shop/*` every seat of a
 * project, `acme/*` every seat of an org, `*` every seat.
 */
export function seatPatternCovers(pattern: string, seat: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('/*')) return seat.startsWith(pattern.slice(0, -1));
  return pattern === seat;
}

/** Whether `seats` (null: every seat of the org) covers `seat`. */
export function seatsCover(seats: string[] | null, seat: string): boolean {
  return seats === null || seats.some((p) => seatPatternCovers(p, seat));
}

/** A seat pattern as `forge token new --seat` takes it: ORG/PROJECT/LABEL, ORG/PROJECT/*, ORG/* or *. */
export const SEAT_PATTERN = /^(\*|[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/(\*|[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/(\*|[A-Za-z0-9][A-Za-z0-9._-]{0,63})))$/;

/** Whether a viewer may see or act on what belongs to `seat` (a tab's owner, a terminal's seat, a hand-off's asker). */
export function seatAllowed(g: ViewerGrant, seat: string): boolean {
  if (g.kind === 'link') return false;
  if (g.tab !== undefined) return false;
  return seatsCover(g.seats, seat);
}

/** Whether a viewer may see or act on the tab `pageId`, owned by `owner` (a link's page is checked by its hand-off, not here). */
export function tabAllowed(g: ViewerGrant, pageId: string, owner: string | undefined): boolean {
  if (g.kind === 'link') return false;
  if (g.tab !== undefined) return g.tab === pageId;
  return g.seats === null || (owner !== undefined && seatsCover(g.seats, owner));
}
