/**
 * Which nodes are alive: every node says so on `forge.presence.<node>` four times a second, and a node
 * not heard for NODE_SILENT_MS is gone (killed, or cut off from NATS). This is what lets a viewer
 * hear of its serving node's death within 2 s, and a dead node's leases be taken before they lapse.
 *
 * While this node is itself off NATS (a restarted nats-server), nobody's silence counts: every
 * node was cut off alike. Once back, each node it knew gets NODE_SILENT_MS again to be heard.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { log } from '../logging.js';
import { subjects } from './protocol.js';

/**
 * How often a node says it is alive, ms: often enough that five beats fit in NODE_SILENT_MS, so
 * the silence that means death can be short while a node that stalls for a second is not dead.
 */
export const PRESENCE_PERIOD_MS = 250;
/**
 * Silence after which a node is gone, ms. A kill -9 is heard within NODE_SILENT_MS plus one
 * PRESENCE_CHECK_MS (1.35 s), leaving the rest of the 2 s a viewer or caller may wait for its
 * sentence to reach it; a node whose main thread stalls up to NODE_SILENT_MS - PRESENCE_PERIOD_MS
 * (1 s: a long evaluation, a burst of encodes, a collection) between two beats still lives.
 */
export const NODE_SILENT_MS = 1_250;
/** A node's last word on its presence subject as it stops (a beat says what the node is: see beatOf). */
const LEAVING = 'leaving';

/** What a node's beat says of it: whether it hosts browsers, and how many profiles it hosts now. */
export interface NodeFacts { browser: boolean; profiles: number }

/** A beat: `B:N` (B 1 when the node hosts browsers, N the profiles it hosts). */
function beatOf(f: NodeFacts): Uint8Array { return new TextEncoder().encode(`${f.browser ? 1 : 0}:${f.profiles}`); }
function factsOf(data: Uint8Array): NodeFacts | undefined {
  const m = /^([01]):(\d{1,9})$/.exec(new TextDecoder().decode(data));
  return m ? { browser: m[1] === '1', profiles: Number(m[2]) } : undefined;
}
/** How often silence is looked for, ms. */
const PRESENCE_CHECK_MS = 100;
/**
 * A look for silence this late (ms after the one before) means this node itself stalled: the beats
 * heard meanwhile still wait to be read, so this look is skipped rather than taking them for silence.
 */
const STALLED_CHECK_MS = 4 * PRESENCE_CHECK_MS;

export class Presence {
  private readonly heard = new Map<string, number>();
  /** What each node heard said of itself in its last beat. */
  private readonly facts = new Map<string, NodeFacts>();
  /** What this node says of itself: set once its leases are open. */
  private own: () => NodeFacts = () => ({ browser: false, profiles: 0 });
  private readonly startedAt = Date.now();
  private readonly beat: NodeJS.Timeout;
  private readonly check: NodeJS.Timeout;
  private readonly sub: Subscription;
  private goneListeners: Array<(node: string) => void> = [];
  /** This node's own link to NATS is up. */
  private connected = true;
  private lastSweep = Date.now();
  /** When this node last said it is alive, and when it last may have seemed silent to the others (off NATS, or its beats late). */
  private lastSaid = Date.now();
  private troubleAt = 0;

  constructor(private readonly nc: NatsConnection, private readonly node: string) {
    this.sub = nc.subscribe(subjects.presence('*'), {
      callback: (_e, m) => {
        const who = m.subject.slice(subjects.presence('').length);
        if (who === node) return;
        const facts = factsOf(m.data);
        if (!facts) { if (new TextDecoder().decode(m.data) === LEAVING) this.left(who); return; }
        if (!this.heard.has(who)) log.info({ node: who }, `node ${who} is in the cluster`);
        this.heard.set(who, Date.now());
        this.facts.set(who, facts);
      },
    });
    const say = (): void => {
      const now = Date.now();
      // A beat this late (a stall past what NODE_SILENT_MS tolerates) may have been heard as silence.
      if (now - this.lastSaid > NODE_SILENT_MS - PRESENCE_PERIOD_MS) this.troubleAt = now;
      this.lastSaid = now;
      try { nc.publish(subjects.presence(node), beatOf(this.own())); } catch { this.troubleAt = now; }
    };
    this.say = say;
    say();
    this.beat = setInterval(say, PRESENCE_PERIOD_MS);
    this.beat.unref();
    this.check = setInterval(() => this.sweep(), PRESENCE_CHECK_MS);
    this.check.unref();
    void (async () => {
      for await (const st of nc.status()) {
        if (st.type === 'disconnect') { this.connected = false; this.troubleAt = Date.now(); }
        else if (st.type === 'reconnect') { this.troubleAt = Date.now(); this.rejoined(); }
      }
    })().catch(() => undefined);
  }

  /** Back on NATS: the nodes this one knew are heard afresh from now (they were cut off too). */
  private rejoined(): void {
    this.connected = true;
    const now = Date.now();
    for (const who of this.heard.keys()) this.heard.set(who, now);
  }

  private readonly say: () => void;

  /** What this node's beats say of it from now on; said at once. */
  describe(own: () => NodeFacts): void { this.own = own; this.say(); }

  /** This node's facts changed (it took a profile): said now rather than at the next beat. */
  sayNow(): void { this.say(); }

  /**
   * Where a profile no live node hosts is placed: the live node that hosts browsers and the fewest
   * profiles now, this node among them when it hosts browsers (and preferred among equals, so a
   * node keeps what reaches it until another holds fewer; otherwise the first by name), so a node
   * added to the cluster takes the next profiles. None when no node hosts browsers.
   */
  leastLoadedBrowserNode(): string | undefined {
    const own = this.own();
    let best: { node: string; profiles: number } | undefined = own.browser ? { node: this.node, profiles: own.profiles } : undefined;
    for (const [node, f] of this.facts) {
      if (!f.browser || !this.alive(node)) continue;
      const fewer = !best || f.profiles < best.profiles;
      if (fewer || (f.profiles === best!.profiles && best!.node !== this.node && node < best!.node)) best = { node, profiles: f.profiles };
    }
    return best?.node;
  }

  /** Whether `node` (another node) has been heard within NODE_SILENT_MS. */
  alive(node: string): boolean {
    if (node === this.node) return true;
    const at = this.heard.get(node);
    // Just after this node stalled, the beats it missed are not read yet: not a silence either.
    return at !== undefined && (!this.connected || Date.now() - this.lastSweep > STALLED_CHECK_MS || Date.now() - at < NODE_SILENT_MS);
  }

  /** Whether this node was on NATS and said it is alive on time from `t` (ms since the epoch) on: no node can have taken it for silent since. */
  answeredSince(t: number): boolean { return this.connected && this.troubleAt < t; }

  /** Whether this node has listened long enough that a node it never heard is truly silent. */
  listenedLongEnough(): boolean { return Date.now() - this.startedAt >= NODE_SILENT_MS; }

  onGone(cb: (node: string) => void): void { this.goneListeners.push(cb); }

  private sweep(): void {
    const now = Date.now();
    const stalled = now - this.lastSweep > STALLED_CHECK_MS;
    this.lastSweep = now;
    if (!this.connected || stalled) return;
    for (const [who, at] of this.heard) {
      if (Date.now() - at < NODE_SILENT_MS) continue;
      this.heard.delete(who);
      this.facts.delete(who);
      log.warn({ node: who, silentMs: Date.now() - at }, `node ${who} stopped answering`);
      for (const cb of this.goneListeners) cb(who);
    }
  }

  /** Node `who` said it is stopping: gone now, not after its silence. */
  private left(who: string): void {
    this.facts.delete(who);
    if (!this.heard.delete(who)) return;
    log.info({ node: who }, `node ${who} left the cluster`);
    for (const cb of this.goneListeners) cb(who);
  }

  /** Stops saying this node is alive, and tells the others it is leaving. */
  close(): void {
    try { this.nc.publish(subjects.presence(this.node), new TextEncoder().encode(LEAVING)); } catch { /* off NATS: the others see the silence */ }
    clearInterval(this.beat);
    clearInterval(this.check);
    this.sub.unsubscribe();
  }
}
