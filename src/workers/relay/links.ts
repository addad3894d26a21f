/**
 * Signed, expiring links: a hand-off link `h.<hand-off id>.<expiry, unix s>.<signature>` opens one
 * page for one person (a phone), and nothing else; a download link `d.<claims>.<expiry>.<signature>`
 * reads one kept download. The signature is Ed25519 (base64url) by the private key of the forge
 * process that made the link, which never leaves it; a link is checked with the public key of the
 * node it names (see link-keys.ts), so no node can make a link that opens another node's hand-off or
 * download.
 */
import { sign, verify, type KeyObject } from 'node:crypto';

/** A hand-off link's life, minutes: an unopened link holds its tab this long. */
export const HANDOFF_LINK_MINUTES = 45;

/** A hand-off's id: `ho-<random>`, and on a cluster's node `-<node name>` after it (a node name is at most 64 characters). */
const HANDOFF_ID_RE = /^[A-Za-z0-9_-]{1,96}$/;

/** An Ed25519 signature in base64url: 64 bytes, 86 characters. */
const SIGNATURE_RE = /^[A-Za-z0-9_-]{86}$/;

/** The public keys a link is checked with: the named node's, or this process's own for a link naming none. */
export interface LinkVerifier {
  keyOf(node: string | undefined): KeyObject | undefined;
}

export interface LinkClaims { handoff: string; exp: number }

/** The node holding hand-off `id`, `ho-<random hex>-<node>` (main/browser/handoff.ts); undefined for a lone server's id, which names none. */
export function handOffNode(id: string): string | undefined {
  return /^ho-[0-9a-f]+-([A-Za-z0-9][A-Za-z0-9_-]*)$/.exec(id)?.[1];
}

function signed(key: KeyObject, body: string): string {
  return `${body}.${sign(null, Buffer.from(body), key).toString('base64url')}`;
}

export function signLink(key: KeyObject, handoff: string, now = Date.now()): { token: string; exp: number } {
  const exp = Math.floor(now / 1000) + HANDOFF_LINK_MINUTES * 60;
  return { token: signed(key, `h.${handoff}.${exp}`), exp };
}

/** The claims of a valid, unexpired link signed by the node holding its hand-off; undefined for anything else. */
export function verifyLink(keys: LinkVerifier, token: string, now = Date.now()): LinkClaims | undefined {
  const t = parseSigned(token, 'h', HANDOFF_ID_RE, now);
  return t && signedBy(keys.keyOf(handOffNode(t.claim)), t) ? { handoff: t.claim, exp: t.exp } : undefined;
}

interface Parsed { body: string; claim: string; exp: number; signature: string }

/** `<kind>.<claim>.<expiry>.<signature>` in shape and unexpired; its signature is not checked yet. */
function parseSigned(token: string, kind: string, claim: RegExp, now: number): Parsed | undefined {
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== kind || !claim.test(parts[1]!) || !/^\d{1,12}$/.test(parts[2]!) || !SIGNATURE_RE.test(parts[3]!)) return undefined;
  const exp = Number(parts[2]);
  if (exp * 1000 <= now) return undefined;
  return { body: parts.slice(0, 3).join('.'), claim: parts[1]!, exp, signature: parts[3]! };
}

/** Whether `key` (absent: a node whose key is unknown) signed the link, in the one spelling of its signature. */
function signedBy(key: KeyObject | undefined, t: Parsed): boolean {
  if (!key) return false;
  const sig = Buffer.from(t.signature, 'base64url');
  if (sig.toString('base64url') !== t.signature) return false;
  try { return verify(null, Buffer.from(t.body), key, sig); } catch { return false; }
}

/**
 * A download link's claims: the kept download by its place under the server's profiles folder
 * (`<org>/<profile>-downloads/dl-<id>-<name>`, never a path of its own) and, on a cluster, the node
 * that kept it, whose key signed it; the relay serves only such a file (see download-path.ts), so
 * even a link a node signed itself reads nothing else.
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

export function signDownload(key: KeyObject, file: { file: string; name: string; node?: string }, minutes: number, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + Math.round(minutes * 60);
  const claim = { f: file.file, n: file.name, ...(file.node ? { o: file.node } : {}) };
  return signed(key, `d.${Buffer.from(JSON.stringify(claim)).toString('base64url')}.${exp}`);
}

/** The file a valid, unexpired download link names, signed by the node it names; undefined for anything else. */
export function verifyDownload(keys: LinkVerifier, token: string, now = Date.now()): DownloadClaims | undefined {
  const t = parseSigned(token, 'd', /^[A-Za-z0-9_-]{1,4096}$/, now);
  if (!t) return undefined;
  let claims: DownloadClaims;
  try {
    const f = JSON.parse(Buffer.from(t.claim, 'base64url').toString('utf8')) as { f?: unknown; n?: unknown; o?: unknown };
    if (typeof f.f !== 'string' || typeof f.n !== 'string' || (f.o !== undefined && typeof f.o !== 'string')) return undefined;
    claims = { file: f.f, name: f.n, ...(typeof f.o === 'string' ? { node: f.o } : {}), exp: t.exp };
  } catch {
    return undefined;
  }
  return signedBy(keys.keyOf(claims.node), t) ? claims : undefined;
}
