/**
 * Placement: each profile key is owned by one node at a time through a lease in a NATS KV
 * bucket. A node takes a lease when it first needs the profile's host, renews it while it lives,
 * and gives it back when it stops; a node that dies stops renewing, the bucket's TTL drops the
 * key, and the next node to need the profile takes it over. Beside each lease its holder keeps a
 * record only it may write, which is how the other nodes tell its writes from another's (lease-book.ts).
 */
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ForgeError } from '../../shared/errors.js';
import { log } from '../logging.js';
import { LEASE_BUCKET } from './protocol.js';
import { NODE_SILENT_MS, type Presence } from './presence.js';
import { LeaseBook, heldKey, leaseKey } from './lease-book.js';

/**
 * A lease's life without renewal, ms: how long a dead node's profiles stay unplaceable. Long
 * enough that a busy event loop or a short NATS hiccup does not lose a live node its hosts.
 */
export const LEASE_TTL_MS = 5_000;
/** How often a held lease is renewed, ms: three tries within one TTL. */
export const LEASE_RENEW_MS = 1_500;
/**
 * After this node rejoins NATS (a restarted nats-server), how long it takes no lease it finds
 * free, ms: a holder's lease may have lapsed in the outage, and the holder is renewing it anew
 * now (at once on its own rejoin, then each LEASE_RENEW_MS). Two renewal periods.
 */
export const REJOIN_CLAIM_GRACE_MS = 2 * LEASE_RENEW_MS;
/** Retry period of the renewal right after a rejoin, ms, while JetStream comes back. */
const REJOIN_RENEW_RETRY_MS = 200;

export class ProfileLeases {
  /** The leases this node holds: key → the entry's revision, which a renewal must match. */
  private readonly held = new Map<string, number>();
  /** When each held lease was last renewed, ms since the epoch. */
  private readonly renewedAt = new Map<string, number>();
  /** Leases this node took over from a node that stopped answering: that node, should it take the lease back. */
  private readonly takenFrom = new Map<string, string>();
  /** Every lease as the writes watched in the bucket stand (renewals are puts, so a live one is seen often). */
  private readonly book: LeaseBook;
  private readonly renewal: NodeJS.Timeout;
  private lostListeners: Array<(key: string, sentence: string) => void> = [];
  private closed = false;
  /** When this node last rejoined NATS, ms since the epoch (0: never left). */
  private rejoinedAt = 0;

  private constructor(nc: NatsConnection, private readonly kv: KV, readonly node: string, private readonly mayHost: boolean, private readonly presence: Presence) {
    this.book = new LeaseBook(node, LEASE_TTL_MS, presence, (key) => this.held.has(key));
    this.renewal = setInterval(() => void this.renew(), LEASE_RENEW_MS);
    this.renewal.unref();
    void (async () => {
      for await (const st of nc.status()) if (st.type === 'reconnect') void this.rejoined();
    })().catch(() => undefined);
  }

  /** Back on NATS: the held leases are renewed at once, retried until JetStream answers or a TTL has passed. */
  private async rejoined(): Promise<void> {
    this.rejoinedAt = Date.now();
    this.book.rejoinedAt = this.rejoinedAt;
    while (!this.closed && Date.now() - this.rejoinedAt < LEASE_TTL_MS) {
      if (await this.renew()) return;
      await new Promise((r) => setTimeout(r, REJOIN_RENEW_RETRY_MS));
    }
  }

  /** `mayHost`: the node's roles include "browser"; without it the node never takes a lease. */
  static async open(nc: NatsConnection, node: string, mayHost: boolean, presence: Presence): Promise<ProfileLeases> {
    const kv = await new Kvm(nc).create(LEASE_BUCKET, { ttl: LEASE_TTL_MS, history: 1 });
    const leases = new ProfileLeases(nc, kv, node, mayHost, presence);
    await leases.follow();
    return leases;
  }

  private async follow(): Promise<void> {
    const watch = await this.kv.watch();
    void (async () => {
      for await (const e of watch) this.book.changed(e.key, e.operation === 'PUT' ? e.string() : undefined);
    })().catch((e: Error) => { if (!this.closed) log.warn({ err: e }, 'the lease watch ended'); });
  }

  /** The node holding `key`'s lease now, as far as this node has seen; undefined when nobody does. */
  owner(key: string): string | undefined {
    if (this.held.has(key)) return this.node;
    return this.book.owner(key);
  }

  /** Takes (or renews) the lease at `rev` for this node. */
  private hold(key: string, rev: number): void {
    const taken = !this.held.has(key);
    this.held.set(key, rev);
    this.renewedAt.set(key, Date.now());
    if (taken) this.presence.sayNow();
  }

  /** How many profiles this node hosts now. */
  get count(): number { return this.held.size; }

  /** Whether node `other`'s own record of holding `key` is in the bucket now (read, not watched). */
  private async vouches(other: string, key: string): Promise<boolean> {
    const r = await this.kv.get(heldKey(other, key)).catch(() => null);
    return r?.operation === 'PUT';
  }

  /** Calls `cb` when a lease this node held was taken by another node (it was out of touch past the TTL). */
  onLost(cb: (key: string, sentence: string) => void): void { this.lostListeners.push(cb); }

  /** Takes `key`'s lease for this node, or refuses in words naming the node that holds it. */
  async claim(key: string): Promise<void> {
    if (this.held.has(key)) return;
    if (!this.mayHost) {
      const at = this.owner(key);
      throw new ForgeError('host_in_use', `node ${this.node} does not host browsers (its [cluster] roles leave out "browser"), and ${at ? `node ${at} hosts profile ${key}` : `no node hosts profile ${key} now`}`);
    }
    // Just back on NATS: a holder may be renewing a lease that lapsed in the outage; it gets that chance first.
    const grace = this.rejoinedAt + REJOIN_CLAIM_GRACE_MS - Date.now();
    if (grace > 0) await new Promise((r) => setTimeout(r, grace));
    // This node's own record first: the other nodes take the lease as this node's only beside it.
    await this.kv.put(heldKey(this.node, key), this.node);
    try {
      await this.take(key);
    } catch (e) {
      await this.kv.delete(heldKey(this.node, key)).catch(() => undefined);
      throw e;
    }
  }

  private async take(key: string): Promise<void> {
    try {
      this.hold(key, await this.kv.create(leaseKey(key), this.node));
      log.info({ profile: key, node: this.node }, 'profile lease taken');
      return;
    } catch { /* held by someone: below */ }
    const e = await this.kv.get(leaseKey(key));
    const standing = this.book.owner(key);
    if (e && e.operation === 'PUT' && e.string() === this.node && !(standing !== undefined && standing !== this.node && this.presence.alive(standing))) {
      // This node's own lease from before a restart: renewed, not taken anew (not so one written in its name over a holder that answers).
      this.hold(key, await this.kv.update(leaseKey(key), this.node, e.revision));
      return;
    }
    const other = e?.operation === 'PUT' ? e.string() : undefined;
    if (!other) {
      // Given back between the create and the read: one more try.
      this.hold(key, await this.kv.create(leaseKey(key), this.node));
      return;
    }
    if (!(await this.vouches(other, key))) {
      // Written in another's name, or left behind by a holder whose own record lapsed: nobody's lease.
      this.hold(key, await this.kv.update(leaseKey(key), this.node, e!.revision));
      log.warn({ profile: key, node: this.node, named: other }, 'profile lease taken: the lease named a node with no record of holding it');
      return;
    }
    if (standing !== undefined && standing !== other && standing !== this.node && this.presence.alive(standing)) {
      throw new ForgeError('host_in_use', `profile ${key} is hosted by node ${standing}; node ${this.node} starts no host for it while ${standing} holds it (its lease lapses ${LEASE_TTL_MS / 1000} s after ${standing} stops)`);
    }
    if (!this.presence.alive(other) && this.presence.listenedLongEnough()) {
      // The holder stopped answering: its lease is taken now rather than when it lapses. Only one
      // taker's update matches the revision; the holder, if it was only cut off, loses it on its next renewal.
      try {
        this.hold(key, await this.kv.update(leaseKey(key), this.node, e!.revision));
        this.takenFrom.set(key, other);
        log.warn({ profile: key, node: this.node, from: other }, 'profile lease taken over from a node that stopped answering');
        return;
      } catch {
        const now = await this.kv.get(leaseKey(key)).catch(() => null);
        throw new ForgeError('host_in_use', `profile ${key} is being placed on node ${now?.operation === 'PUT' ? now.string() : 'another node'} after node ${other} stopped answering; call again`);
      }
    }
    throw new ForgeError('host_in_use', `profile ${key} is hosted by node ${other}; node ${this.node} starts no host for it while ${other} holds it (its lease lapses ${LEASE_TTL_MS / 1000} s after ${other} stops)`);
  }

  /** Renews every held lease; false when NATS did not answer for some (an outage: tried again). */
  private async renew(): Promise<boolean> {
    let answered = true;
    for (const [key, rev] of [...this.held]) {
      try {
        await this.kv.put(heldKey(this.node, key), this.node);
        this.hold(key, await this.kv.update(leaseKey(key), this.node, rev));
      } catch (e) {
        if (this.closed || this.held.get(key) !== rev) continue;
        // A NATS outage: keep trying while the TTL may still hold; a lease another node took is lost.
        const now = await this.kv.get(leaseKey(key)).catch(() => undefined);
        if (now === undefined) { answered = false; continue; }
        if (now && now.operation === 'PUT' && now.string() === this.node) { this.hold(key, now.revision); continue; }
        if (now === null || now.operation !== 'PUT') {
          // Lapsed while NATS was away and nobody took it (or another node deleted it): taken again.
          const rev = await this.kv.create(leaseKey(key), this.node).catch(() => undefined);
          if (rev !== undefined) { this.hold(key, rev); continue; }
        }
        const by = now?.operation === 'PUT' ? now.string() : 'another node';
        // Taken while this node answered and renewed throughout: nobody could take this node for silent, so the write was not a takeover.
        // Not so from the node this one took it over from: that one answered after all, and keeps it.
        const since = (this.renewedAt.get(key) ?? 0) - NODE_SILENT_MS;
        if (now && now.operation === 'PUT' && by !== this.takenFrom.get(key) && this.presence.answeredSince(since) && Date.now() - Math.max(since, this.rejoinedAt) < LEASE_TTL_MS) {
          const back = await this.kv.update(leaseKey(key), this.node, now.revision).catch(() => undefined);
          if (back !== undefined) {
            log.warn({ profile: key, node: this.node, by }, `node ${by} wrote the lease of profile ${key} while node ${this.node} held it and answered; taken back`);
            this.hold(key, back);
            continue;
          }
        }
        this.held.delete(key);
        this.renewedAt.delete(key);
        this.takenFrom.delete(key);
        // Its record goes too, so that every node takes the lease as the new holder's at once.
        void this.kv.delete(heldKey(this.node, key)).catch(() => undefined);
        const sentence = `node ${this.node} lost the lease of profile ${key} (held by ${by} now), so its browser host here was ended`;
        log.error({ profile: key, err: e }, sentence);
        for (const cb of this.lostListeners) cb(key, sentence);
      }
    }
    return answered;
  }

  /** Gives every held lease back, so another node may take the profiles at once. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.renewal);
    const keys = [...this.held.keys()];
    this.held.clear();
    // Its own record first, so that no node takes the lease's deletion for another node's.
    await Promise.allSettled(keys.map(async (k) => { await this.kv.delete(heldKey(this.node, k)); await this.kv.delete(leaseKey(k)); }));
  }
}
