/**
 * What a node makes of the lease bucket: for each profile, the node holding it, judged from the
 * writes it watched. The bucket's shared lease keys are writable by every node (holding moves
 * between nodes, which no static NATS permission follows), so a write there stands only when its
 * writer vouches for it in its own record, a key only that node may write:
 *
 *   lease.<org>/<profile>          the holder's name: taken by compare-and-set, renewed, given back
 *   held.<node>.<org>/<profile>    the holder's own record, written before the lease and renewed with it
 *
 * A lease naming a node with no live record of its own is nobody's (another node spoke for it),
 * and a lease taken from a holder that still answers and renews stays that holder's until it stops:
 * only a lapsed, given-back or silent holder's profile changes hands.
 */
import { log } from '../logging.js';
import type { Presence } from './presence.js';

/** The shared lease key of profile `profile`. */
export const leaseKey = (profile: string): string => `lease.${profile}`;
/** Node `node`'s own record that it holds `profile` (natsPermissions lets only that node write it). */
export const heldKey = (node: string, profile: string): string => `held.${node}.${profile}`;

/** A bucket key read back: a lease, a holder's record, or neither. */
export function parseLeaseKey(key: string): { kind: 'lease'; profile: string } | { kind: 'held'; node: string; profile: string } | undefined {
  if (key.startsWith('lease.')) return { kind: 'lease', profile: key.slice('lease.'.length) };
  if (!key.startsWith('held.')) return undefined;
  const rest = key.slice('held.'.length);
  const dot = rest.indexOf('.');
  return dot > 0 ? { kind: 'held', node: rest.slice(0, dot), profile: rest.slice(dot + 1) } : undefined;
}

interface Seen { node: string; at: number }

export class LeaseBook {
  /** Per profile: the holder whose lease stands, and a later write held back while it answers. */
  private readonly seen = new Map<string, Seen & { next?: Seen }>();
  /** Holders' own records: `node profile` → when last written, ms since the epoch. */
  private readonly records = new Map<string, number>();
  /** When this node last rejoined NATS, ms since the epoch: writes missed while away do not age anything. */
  rejoinedAt = 0;

  constructor(private readonly node: string, private readonly ttlMs: number, private readonly presence: Presence, private readonly holds: (profile: string) => boolean) {}

  private fresh(at: number): boolean { return Date.now() - Math.max(at, this.rejoinedAt) < this.ttlMs; }

  /** Whether `node` holds a live record of its own for `profile` (this node: whether it holds the lease). */
  vouched(node: string, profile: string): boolean {
    if (node === this.node) return this.holds(profile);
    const at = this.records.get(`${node} ${profile}`);
    return at !== undefined && this.fresh(at);
  }

  private stands(s: Seen, profile: string): boolean { return this.fresh(s.at) && this.vouched(s.node, profile); }

  /** A watched change of key `key`: `value` is the PUT's, undefined for a delete or a lapse. */
  changed(key: string, value: string | undefined): void {
    const k = parseLeaseKey(key);
    if (!k) return;
    if (k.kind === 'held') {
      if (value === undefined) this.records.delete(`${k.node} ${k.profile}`);
      else this.records.set(`${k.node} ${k.profile}`, Date.now());
      return;
    }
    const s = this.seen.get(k.profile);
    if (value === undefined) {
      // A holder gives its record back before its lease: a lease deleted under a live record was deleted by another node.
      if (s && this.stands(s, k.profile) && this.presence.alive(s.node)) { log.warn({ profile: k.profile, holder: s.node }, `the lease of profile ${k.profile} was deleted while node ${s.node} holds it; it stays ${s.node}'s`); return; }
      this.seen.delete(k.profile);
      return;
    }
    // This node's name: its own write (heard, maybe, before the write's answer), where its own lease map decides, or another's in its name.
    if (value === this.node && !this.holds(k.profile)) return;
    if (!this.vouched(value, k.profile)) {
      log.warn({ profile: k.profile, named: value }, `a write of profile ${k.profile}'s lease names node ${value}, which has no record of holding it; ignored`);
      return;
    }
    if (!s || s.node === value || !this.stands(s, k.profile) || !this.presence.alive(s.node)) {
      // The holder's own renewal (or a lease free to take): what another node wrote over it meanwhile is gone.
      this.seen.set(k.profile, { node: value, at: Date.now() });
      return;
    }
    if (!s.next) log.warn({ profile: k.profile, holder: s.node, by: value }, `node ${value} wrote profile ${k.profile}'s lease while node ${s.node} holds it and answers; it stays ${s.node}'s while ${s.node} renews it`);
    s.next = { node: value, at: Date.now() };
  }

  /** The node whose lease of `profile` stands now, as far as this node has seen; undefined when nobody's does. */
  owner(profile: string): string | undefined {
    const s = this.seen.get(profile);
    if (!s) return undefined;
    if (s.next && (!this.stands(s, profile) || !this.presence.alive(s.node))) {
      // The holder stopped: the write held back is the lease now, if its writer still vouches for it.
      s.node = s.next.node;
      s.at = s.next.at;
      delete s.next;
    }
    return this.stands(s, profile) ? s.node : undefined;
  }
}
