/**
 * The token book: turns a presented secret into the grant it carries, or nothing. It holds the
 * server's two keys of this run (the agents' key and the printed viewer link's person token),
 * the tokens made with `forge token new` (kept hashed: the book never sees their secrets), and
 * verifies signed hand-off links with the key of the node holding the hand-off. The relay's door
 * and the MCP endpoint both ask it.
 */
import { createHash } from 'node:crypto';
import type { AgentGrant, ViewerGrant } from '../../shared/grants.js';
import { verifyLink, type LinkVerifier } from './links.js';

/** A token as the state dir keeps it: its secret's SHA-256, never the secret. */
export interface TokenRecord {
  name: string;
  kind: 'agent' | 'person';
  /** SHA-256 of the secret, hex. */
  hash: string;
  /** A person's: watch or control. */
  role?: 'watch' | 'control';
  /** Seat patterns it is limited to; null: every seat of the org. */
  seats: string[] | null;
  /** A person's token limited to one tab, by page id. */
  tab?: string;
  /** Expiry, unix ms; absent: until revoked. */
  exp?: number;
  /** When it was made, unix ms. */
  created: number;
}

/** Names of the two keys each server run makes for itself: never a name `forge token new` accepts. */
export const SERVER_AGENT_KEY_NAME = '(server agent key)';
export const SERVER_VIEWER_TOKEN_NAME = '(printed viewer link)';

/** Prefixes that say what a secret is at a glance (and to secret scanners): an agent key, a person's token. */
export const AGENT_KEY_PREFIX = 'fa_';
export const PERSON_TOKEN_PREFIX = 'fp_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export interface TokenBookSeed {
  agentKey: string;
  viewerToken: string;
  /** The public keys hand-off links are checked with: this process's own, and on a cluster every node's (see link-keys.ts). */
  linkKeys: LinkVerifier;
  records: TokenRecord[];
}

/** A grant's token id: enough of its hash to tell tokens apart, too little to matter if seen. */
function idOf(r: TokenRecord): string { return r.hash.slice(0, 16); }

export class TokenBook {
  private byHash = new Map<string, TokenRecord>();
  private readonly builtIn: TokenRecord[];

  constructor(private readonly seed: TokenBookSeed) {
    const now = Date.now();
    this.builtIn = [
      { name: SERVER_AGENT_KEY_NAME, kind: 'agent', hash: hashSecret(seed.agentKey), seats: null, created: now },
      { name: SERVER_VIEWER_TOKEN_NAME, kind: 'person', role: 'control', hash: hashSecret(seed.viewerToken), seats: null, created: now },
    ];
    this.replace(seed.records);
  }

  /** The state dir's tokens changed: the book now holds these (and the server's own two). */
  replace(records: TokenRecord[]): void {
    this.byHash = new Map([...records, ...this.builtIn].map((r) => [r.hash, r]));
  }

  private record(secret: string, now: number): TokenRecord | undefined {
    if (secret.length === 0 || secret.length > 512) return undefined;
    const r = this.byHash.get(hashSecret(secret));
    if (!r || (r.exp !== undefined && r.exp <= now)) return undefined;
    return r;
  }

  /** What a secret grants on the viewer socket; `agent` when it is an agent key (which is refused there, in words). */
  viewer(secret: string, now = Date.now()): ViewerGrant | 'agent' | undefined {
    const link = verifyLink(this.seed.linkKeys, secret, now);
    if (link) return { kind: 'link', handoff: link.handoff, exp: link.exp * 1000 };
    const r = this.record(secret, now);
    if (!r) return undefined;
    if (r.kind === 'agent') return 'agent';
    return { kind: 'person', id: idOf(r), name: r.name, role: r.role ?? 'watch', seats: r.seats, ...(r.tab !== undefined ? { tab: r.tab } : {}), ...(r.exp !== undefined ? { exp: r.exp } : {}) };
  }

  /** What a secret grants over MCP, /metrics and raw CDP; `person` when it is a person's token (refused there, in words). */
  agent(secret: string, now = Date.now()): AgentGrant | 'person' | undefined {
    const r = this.record(secret, now);
    if (!r) return verifyLink(this.seed.linkKeys, secret, now) ? 'person' : undefined;
    if (r.kind === 'person') return 'person';
    return { kind: 'agent', id: idOf(r), name: r.name, seats: r.seats, ...(r.exp !== undefined ? { exp: r.exp } : {}) };
  }

  /** Whether a grant given earlier still holds: its token not revoked nor expired (a link: not expired). */
  holds(g: ViewerGrant | AgentGrant, now = Date.now()): boolean {
    if (g.exp !== undefined && g.exp <= now) return false;
    if (g.kind === 'link') return true;
    for (const r of this.byHash.values()) if (idOf(r) === g.id) return true;
    return false;
  }
}
