/**
 * The viewer socket's door rules, apart from the socket code: how long a socket may stay
 * unauthenticated and how much it may say meanwhile, and how fast an authenticated one may talk.
 */

/** How long a socket that came without a token has to send `hello`, ms: a real client sends it at once. */
export const AUTH_DEADLINE_MS = 5_000;

/** Largest message read from a socket not yet authenticated, bytes: `hello` with a token is under 200. */
export const UNAUTH_MESSAGE_MAX_BYTES = 4 * 1024;

/**
 * Messages a second a viewer may send, sustained: a controller's mouse moves at 120 Hz plus keys
 * and acks are a few hundred; past this it is a flood, told and closed.
 */
export const VIEWER_MESSAGES_PER_SECOND = 1_000;

/** Burst a viewer may send above the sustained rate, messages: a paste of keys, a reconnect's catch-up. */
export const VIEWER_MESSAGE_BURST = 2_000;

/** How often open sockets are checked for a grant that expired, ms. */
export const GRANT_SWEEP_MS = 1_000;

/** Close codes the door uses, each with its words beside it where it is sent. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_FORBIDDEN = 4403;
export const CLOSE_POLICY = 1008;
export const CLOSE_TOO_BIG = 1009;

export const SENTENCES = {
  noHello: `a viewer must send its token first, within ${AUTH_DEADLINE_MS / 1000} s`,
  unauthTooBig: `a message before the token is limited to ${UNAUTH_MESSAGE_MAX_BYTES / 1024} KiB`,
  wrongToken: 'the viewer token is wrong, expired or revoked; after a restart, open the new viewer link the server printed',
  agentKey: 'this is the agents\' key: it opens MCP only; a person opens the viewer link forge printed, or a token from forge token new',
  tooFast: `this connection sent more than ${VIEWER_MESSAGES_PER_SECOND} messages a second; it was closed`,
  revoked: 'this token was revoked or has expired',
} as const;

/** A token bucket: `take()` is false once a sender has spent its burst faster than the rate refills it. */
export class RateBound {
  private tokens: number;
  private last: number;

  constructor(private readonly perSecond = VIEWER_MESSAGES_PER_SECOND, private readonly burst = VIEWER_MESSAGE_BURST, now = Date.now()) {
    this.tokens = burst;
    this.last = now;
  }

  take(now = Date.now()): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
