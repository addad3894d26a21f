/**
 * The tokens a deployment makes with `forge token new`: kept hashed in `<state>/tokens.json`
 * (mode 0600), listed and revoked by name. The secret is printed once and never stored. A
 * running server reads the file again when it changes, and a revoked token's sockets and
 * sessions are closed at once.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { ForgeError } from '../shared/errors.js';
import { SEAT_PATTERN } from '../shared/grants.js';
import { AGENT_KEY_PREFIX, PERSON_TOKEN_PREFIX, hashSecret, type TokenRecord } from '../workers/relay/tokens.js';

/** A token's name: what `list` shows and `revoke` takes. */
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Bytes of randomness in a secret: 192 bits, past any guessing. */
const SECRET_BYTES = 24;
/** Longest life `--expires` takes, hours: a year; a longer-lived credential should be revoked by hand. */
const EXPIRES_MAX_HOURS = 24 * 366;
/** Tokens one state dir holds: a bound on the file the server reads again on every change. */
export const TOKENS_MAX = 1000;

export function tokensFile(stateDir: string): string { return join(stateDir, 'tokens.json'); }

export function readTokens(stateDir: string): TokenRecord[] {
  let text: string;
  try { text = readFileSync(tokensFile(stateDir), 'utf8'); } catch { return []; }
  try {
    const v = JSON.parse(text) as { tokens?: unknown };
    return Array.isArray(v.tokens) ? (v.tokens as TokenRecord[]).filter(isRecord) : [];
  } catch {
    throw new ForgeError('config', `${tokensFile(stateDir)} is not valid JSON; fix or remove it (every token in it would be lost)`);
  }
}

function isRecord(r: unknown): r is TokenRecord {
  const t = r as TokenRecord;
  return typeof t === 'object' && t !== null && typeof t.name === 'string' && typeof t.hash === 'string' && /^[0-9a-f]{64}$/.test(t.hash)
    && (t.kind === 'agent' || t.kind === 'person') && (t.seats === null || (Array.isArray(t.seats) && t.seats.every((s) => typeof s === 'string')));
}

function writeTokens(stateDir: string, tokens: TokenRecord[]): void {
  const file = tokensFile(stateDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ tokens }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The file's change stamp, for a cheap "did it change" check; 0 when it is absent. */
export function tokensStamp(stateDir: string): number {
  try { const s = statSync(tokensFile(stateDir)); return s.mtimeMs * 1000 + s.size; } catch { return 0; }
}

export interface NewToken {
  name?: string;
  agent?: boolean;
  seats?: string[];
  tab?: string;
  role?: 'watch' | 'control';
  expires?: string;
}

/** `8h`, `30m`, `7d`: a duration in ms. */
export function parseDuration(text: string): number {
  const m = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (!m) throw new ForgeError('bad_request', `--expires takes a number and m, h or d (30m, 8h, 7d), not "${text.slice(0, 40)}"`);
  const ms = Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
  if (ms <= 0 || ms > EXPIRES_MAX_HOURS * 3_600_000) throw new ForgeError('bad_request', `--expires is from 1m to ${EXPIRES_MAX_HOURS / 24} days`);
  return ms;
}

/** Makes a token: returns its secret (shown once) and its record (kept). */
export function newToken(stateDir: string, o: NewToken, now = Date.now()): { secret: string; record: TokenRecord } {
  const tokens = readTokens(stateDir);
  if (tokens.length >= TOKENS_MAX) throw new ForgeError('bad_request', `this state dir holds ${TOKENS_MAX} tokens already; revoke some first`);
  const name = o.name ?? `${o.agent ? 'agent' : 'person'}-${randomBytes(3).toString('hex')}`;
  if (!TOKEN_NAME.test(name)) throw new ForgeError('bad_request', 'a token name is letters, digits, . _ - (up to 64), starting with a letter or digit');
  if (tokens.some((t) => t.name === name)) throw new ForgeError('bad_request', `a token named ${name} exists; revoke it first or choose another --name`);
  for (const s of o.seats ?? []) {
    if (!SEAT_PATTERN.test(s)) throw new ForgeError('bad_request', `--seat takes ORG/PROJECT/LABEL, ORG/PROJECT/*, ORG/* or *, not "${s.slice(0, 80)}"`);
  }
  if (o.agent && (o.tab !== undefined || o.role !== undefined)) throw new ForgeError('bad_request', '--tab, --watch and --control are for a person\'s token; an agent key takes --seat');
  if (o.tab !== undefined && !/^p-[A-Za-z0-9-]{1,64}$/.test(o.tab)) throw new ForgeError('bad_request', `--tab takes a page id as browser_tabs prints it (p-…), not "${o.tab.slice(0, 80)}"`);
  const secret = (o.agent ? AGENT_KEY_PREFIX : PERSON_TOKEN_PREFIX) + randomBytes(SECRET_BYTES).toString('base64url');
  const record: TokenRecord = {
    name, kind: o.agent ? 'agent' : 'person', hash: hashSecret(secret),
    ...(o.agent ? {} : { role: o.role ?? 'control' }),
    seats: o.seats?.length ? o.seats : null,
    ...(o.tab !== undefined ? { tab: o.tab } : {}),
    ...(o.expires !== undefined ? { exp: now + parseDuration(o.expires) } : {}),
    created: now,
  };
  writeTokens(stateDir, [...tokens, record]);
  return { secret, record };
}

/** Revokes a token by name; false when none has that name. */
export function revokeToken(stateDir: string, name: string): boolean {
  const tokens = readTokens(stateDir);
  const left = tokens.filter((t) => t.name !== name);
  if (left.length === tokens.length) return false;
  writeTokens(stateDir, left);
  return true;
}

/** One line for `forge token list`: name, kind, what it may do, when it ends. */
export function describeToken(r: TokenRecord, now = Date.now()): string {
  const what = r.kind === 'agent' ? 'agent key (MCP)' : `person, ${r.role ?? 'watch'}`;
  const scope = r.tab !== undefined ? `tab ${r.tab}` : r.seats ? `seats ${r.seats.join(', ')}` : 'every seat';
  const ends = r.exp === undefined ? 'until revoked' : r.exp <= now ? 'expired' : `expires ${new Date(r.exp).toISOString()}`;
  return `${r.name}\t${what}\t${scope}\t${ends}\tmade ${new Date(r.created).toISOString()}`;
}
