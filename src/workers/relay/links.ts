/**
 * Signed, expiring hand-off links: `h.<hand-off id>.<expiry, unix s>.<HMAC-SHA256>`. A link opens
 * one page for one person (a phone), and nothing else; the server's secret signs it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A hand-off link's life, minutes: an unopened link holds its tab this long. */
export const HANDOFF_LINK_MINUTES = 45;

export interface LinkClaims { handoff: string; exp: number }

function mac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}

export function signLink(secret: string, handoff: string, now = Date.now()): { token: string; exp: number } {
  const exp = Math.floor(now / 1000) + HANDOFF_LINK_MINUTES * 60;
  const body = `h.${handoff}.${exp}`;
  return { token: `${body}.${mac(secret, body)}`, exp };
}

/** The claims of a valid, unexpired link; undefined for anything else. */
export function verifyLink(secret: string, token: string, now = Date.now()): LinkClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== 'h' || !/^[A-Za-z0-9-]{1,64}$/.test(parts[1]) || !/^\d{1,12}$/.test(parts[2])) return undefined;
  const body = parts.slice(0, 3).join('.');
  const want = Buffer.from(mac(secret, body));
  const got = Buffer.from(parts[3]);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
  const exp = Number(parts[2]);
  if (exp * 1000 <= now) return undefined;
  return { handoff: parts[1], exp };
}
