/**
 * Placement: each profile key is owned by one node at a time through a lease in a NATS KV
 * bucket. A node takes a lease when it first needs the profile's host, renews it while it lives,
 * and gives it back when it stops; a node that dies stops renewing, the bucket's TTL drops the
 * key, and the next node to need the profile takes it over.
 */
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ForgeError } from '../../shared/errors.js';
import { log } from '../logging.js';
import { LEASE_BUCKET } from './protocol.js';
import type { Presence } from './presence.js';

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

interface Seen { node: string; at: number }

export class ProfileLeases {
  /** The leases this node holds: key → the entry's revision, which a renewal must match. */
  private readonly held = new Map<string, number>();
  /** Every lease as last seen in the bucket (renewals are puts, so a live one is seen often). */
  private readonly seen = new Map<string, Seen>();
  private readonly renewal: NodeJS.Timeout;
  private lostListeners: Array<(key: string, sentence: string) => void> = [];
  private closed = false;
  /** When this node last rejoined NATS, ms since the epoch (0: never left). */
  private rejoinedAt = 0;

  private constructor(nc: NatsConnection, private readonly kv: KV, readonly node: string, private readonly mayHost: boolean, private readonly presence: Presence) {
    this.renewal = setInterval(() => void this.renew(), LEASE_RENEW_MS);
    this.renewal.unref();
    void (async () => {
      for await (const st of nc.status()) if (st.type === 'reconnect') void this.rejoined();
    })().catch(() => undefined);
  }

  /** Back on NATS: the held leases are renewed at once, retried until JetStream answers or a TTL has passed. */
  private async rejoined(): Promise<void> {
    this.rejoinedAt = Date.now();
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
      for await (const e of watch) {
        if (e.operation === 'PUT') this.seen.set(e.key, { node: e.string(), at: Date.now() });
        else this.seen.delete(e.key);
      }
    })().catch((e: Error) => { if (!this.closed) log.warn({ err: e }, 'the lease watch ended'); });
  }

  /** The node holding `key`'s lease now, as far as this node has seen; undefined when nobody does. */
  owner(key: string): string | undefined {
    if (this.held.has(key)) return this.node;
    const s = this.seen.get(key);
    // Renewals missed while this node was off NATS do not age a lease: it is judged from the rejoin on.
    return s && Date.now() - Math.max(s.at, this.rejoinedAt) < LEASE_TTL_MS ? s.node : undefined;
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
    try {
      this.held.set(key, await this.kv.create(key, this.node));
      log.info({ profile: key, node: this.node }, 'profile lease taken');
      return;
    } catch { /* held by someone: below */ }
    const e = await this.kv.get(key);
    if (e && e.operation === 'PUT' && e.string() === this.node) {
      // This node's own lease from before a restart: renewed, not taken anew.
      this.held.set(key, await this.kv.update(key, this.node, e.revision));
      return;
    }
    const other = e?.operation === 'PUT' ? e.string() : undefined;
    if (!other) {
      // Given back between the create and the read: one more try.
      this.held.set(key, await this.kv.create(key, this.node));
      return;
    }
    if (!this.presence.alive(other) && this.presence.listenedLongEnough()) {
      // The holder stopped answering: its lease is taken now rather than when it lapses. Only one
      // taker's update matches the revision; the holder, if it was only cut off, loses it on its next renewal.
      try {
        this.held.set(key, await this.kv.update(key, this.node, e!.revision));
        log.warn({ profile: key, node: this.node, from: other }, 'profile lease taken over from a node that stopped answering');
        return;
      } catch {
        const now = await this.kv.get(key).catch(() => null);
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
        this.held.set(key, await this.kv.update(key, this.node, rev));
      } catch (e) {
        if (this.closed || this.held.get(key) !== rev) continue;
        // A NATS outage: keep trying while the TTL may still hold; a lease another node took is lost.
        const now = await this.kv.get(key).catch(() => undefined);
        if (now === undefined) { answered = false; continue; }
        if (now && now.operation === 'PUT' && now.string() === this.node) { this.held.set(key, now.revision); continue; }
        if (now === null || now.operation !== 'PUT') {
          // Lapsed while NATS was away and nobody took it: taken again.
          const rev = await this.kv.create(key, this.node).catch(() => undefined);
          if (rev !== undefined) { this.held.set(key, rev); continue; }
        }
        this.held.delete(key);
        const by = now?.operation === 'PUT' ? now.string() : 'another node';
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
    await Promise.allSettled(keys.map((k) => this.kv.delete(k)));
  }
}
