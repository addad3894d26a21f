/**
 * The raw CDP door's messages between the relay (which owns the sockets and checks the agents'
 * key) and the main thread (which owns the tabs and the browser's own CDP socket). A CDP message
 * crosses as its JSON text, unparsed by the relay.
 */
import type { AgentGrant } from '../../shared/grants.js';

/** Close codes of a raw CDP socket, each with its words beside it where it is sent. */
export const CDP_CLOSE_GOING_AWAY = 1001;
export const CDP_CLOSE_NOT_TEXT = 1003;
export const CDP_CLOSE_TOO_BIG = 1009;
export const CDP_CLOSE_INTERNAL = 1011;
/** "Try again later": the browser is still starting, so whether the page exists is not known yet. */
export const CDP_CLOSE_TRY_AGAIN = 1013;
export const CDP_CLOSE_UNAUTHORIZED = 4401;
export const CDP_CLOSE_FORBIDDEN = 4403;
/** No tab carries the page id (or it closed): the reason lists the seat's tabs open now. */
export const CDP_CLOSE_NO_TAB = 4404;

/** A WebSocket close reason is at most 123 bytes of UTF-8: longer words are cut to fit, with an ellipsis. */
export const CLOSE_REASON_MAX_BYTES = 123;

/** `reason` cut to what a close frame carries. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= CLOSE_REASON_MAX_BYTES) return reason;
  let cut = reason;
  while (Buffer.byteLength(cut) > CLOSE_REASON_MAX_BYTES - 3) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** relay → main */
export type CdpFromRelay =
  /** A socket the door admitted: the seat it acts for, and the page id of a `/cdp/<page id>` socket (null: the seat's endpoint). */
  | { t: 'cdp_open'; conn: number; seat: string; pageId: string | null; grant: AgentGrant }
  | { t: 'cdp_message'; conn: number; text: string }
  | { t: 'cdp_closed'; conn: number };

/** main → relay */
export type CdpToRelay =
  | { t: 'cdp_send'; conn: number; text: string }
  | { t: 'cdp_close'; conn: number; code: number; reason: string };

export function isCdpFromRelay(m: { t: string }): m is CdpFromRelay {
  return m.t === 'cdp_open' || m.t === 'cdp_message' || m.t === 'cdp_closed';
}

export function isCdpToRelay(m: { t: string }): m is CdpToRelay {
  return m.t === 'cdp_send' || m.t === 'cdp_close';
}
