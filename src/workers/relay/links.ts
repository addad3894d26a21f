/**
 * Signed, expiring hand-off links: `h.<hand-off id>.<expiry, unix s>.<HMAC-SHA256>`. A link opens
 * one page for one person (a phone), and nothing else; the server's secret signs it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A hand-off link's life, minutes: an unopened link holds its tab this long. */
export const HANDOFF_LINK_MINUTES = 45;

/** A hand-off's id: `ho-<random>`, and on a cluster's node `-<node name>` after it (a node name is at most 64 characters). */
const HANDOFF_ID_RE = /^[A-Za-z0-9_-]{1,96}$/;

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
  const v = verifySigned(secret, token, 'h', HANDOFF_ID_RE, now);
  return v && { handoff: v.claim, exp: v.exp };
}

/** `<kind>.<claim>.<expiry>.<mac>` checked: the claim when the signature holds and the link has not expired. */
function verifySigned(secret: string, token: string, kind: string, claim: RegExp, now: number): { claim: string; exp: number } | undefined {
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== kind || !claim.test(parts[1]!) || !/^\d{1,12}$/.test(parts[2]!)) return undefined;
  const body = parts.slice(0, 3).join('.');
  const want = Buffer.from(mac(secret, body));
  const got = Buffer.from(parts[3]!);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
  const exp = Number(parts[2]);
  if (exp * 1000 <= now) return undefined;
  return { claim: parts[1]!, exp };
}

/**
 * Signed, expiring download links: `d.<file, base64url JSON>.<expiry, unix s>.<HMAC-SHA256>`. The
 * link names one kept download by its place under the server's profiles folder
 * (`<org>/<profile>-downloads/dl-<id>-<name>`, never a path of its own) and, on a cluster, the node
 * that kept it; the relay serves only such a file (see download-path.ts), so even a link signed
 * with the secret reads nothing else.
 */
export interface DownloadClaims {
  /** The kept file, relative to the profiles folder of the node that kept it. */
  file: string;
  /** The name the person's browser saves it under. */
  name: string;
  /** The cluster node that kept it; absent on a lone server. */
  node?: string;
  exp: number;
}

export function signDownload(secret: string, file: { file: string; name: string; node?: string }, minutes: number, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + Math.round(minutes * 60);
  const claim = { f: file.file, n: file.name, ...(file.node ? { o: file.node } : {}) };
  const body = `d.${Buffer.from(JSON.stringify(claim)).toString('base64url')}.${exp}`;
  return `${body}.${mac(secret, body)}`;
}

/** The file a valid, unexpired download link names; undefined for anything else. */
export function verifyDownload(secret: string, token: string, now = Date.now()): DownloadClaims | undefined {
  const v = verifySigned(secret, token, 'd', /^[A-Za-z0-9_-]{1,4096}$/, now);
  if (!v) return undefined;
  try {
    const f = JSON.parse(Buffer.from(v.claim, 'base64url').toString('utf8')) as { f?: unknown; n?: unknown; o?: unknown };
    if (typeof f.f !== 'string' || typeof f.n !== 'string' || (f.o !== undefined && typeof f.o !== 'string')) return undefined;
    return { file: f.f, name: f.n, ...(typeof f.o === 'string' ? { node: f.o } : {}), exp: v.exp };
  } catch {
    return undefined;
  }
}
