/**
 * The terminal path between nodes, run in the relay thread beside the terminal fan-out, relay to
 * relay: a terminal's bytes never cross either node's main thread.
 *
 * Owning side: a viewer served here for another node (a guest) is one more viewer of the
 * terminal fan-out, whose socket is a subject: its frames (repaints, the `term_view` before them,
 * output) go out in order on the watching node's subject, from one connection.
 *
 * Watching side: frames for this node's viewers come in on its subject and go to their sockets,
 * taken only from the node serving each viewer. Their acks go back the same way to the owner,
 * where the fan-out counts them as for a viewer of its own.
 *
 * Flow control is the fan-out's, end to end: a guest's unacknowledged bytes include whatever is
 * still in NATS or in the watching node, so a keyboard holder that falls behind holds the PTY, and
 * a watcher that falls behind is dropped and repainted once caught up. Nothing queues without bound.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { TermSink } from '../../workers/relay/term-fanout.js';
import { packOp, subjects, unpackOp, type TermAck } from './protocol.js';

/** Bytes before a terminal frame on its hop: the viewer's id on the watching node (a float64, as ids pass 2^32). */
export const TERM_HOP_HEADER_BYTES = 8;

interface Guest { node: string; viewer: number }

export class TermBridge {
  /** Viewers served here for other nodes: id here → their node and id there. */
  private readonly guests = new Map<number, Guest>();
  private readonly guestIds = new Map<string, number>();
  /** This node's viewers another node serves: id → that node. */
  private readonly servedBy = new Map<number, string>();
  private readonly subs: Subscription[];
  readonly counters = { framesOut: 0, framesIn: 0, acksOut: 0 };

  /** `deliver`: bytes for a socket of this node; `ack`: an ack for a guest of this node's terminal fan-out. */
  constructor(
    private readonly nc: NatsConnection, private readonly node: string,
    deliver: (viewer: number, bytes: Uint8Array) => void,
    ack: (term: number, viewer: number, bytes: number) => void,
  ) {
    const from = (subject: string): string => subject.slice(subject.lastIndexOf('.') + 1);
    this.subs = [
      nc.subscribe(subjects.term(node, '*'), {
        callback: (_e, m) => {
          if (m.data.byteLength <= TERM_HOP_HEADER_BYTES) return;
          const viewer = new DataView(m.data.buffer, m.data.byteOffset, TERM_HOP_HEADER_BYTES).getFloat64(0, true);
          if (this.servedBy.get(viewer) !== from(m.subject)) return;
          this.counters.framesIn++;
          deliver(viewer, m.data.subarray(TERM_HOP_HEADER_BYTES));
        },
      }),
      nc.subscribe(subjects.termAck(node, '*'), {
        callback: (_e, m) => {
          const a = unpackOp<TermAck>(m.data);
          if (!a || typeof a.term !== 'number' || typeof a.bytes !== 'number') return;
          const id = this.guestIds.get(`${from(m.subject)}:${a.viewer}`);
          if (id !== undefined) ack(a.term, id, a.bytes);
        },
      }),
    ];
  }

  /** Guest `id` here is viewer `viewer` of node `node` (node null: it left). */
  guest(id: number, node: string | null, viewer: number): void {
    const g = this.guests.get(id);
    if (g) { this.guestIds.delete(`${g.node}:${g.viewer}`); this.guests.delete(id); }
    if (node === null) return;
    this.guests.set(id, { node, viewer });
    this.guestIds.set(`${node}:${viewer}`, id);
  }

  /** This node's viewer `viewer` is served by node `node` (null: by this node again). */
  servedElsewhere(viewer: number, node: string | null): void {
    if (node === null) this.servedBy.delete(viewer);
    else this.servedBy.set(viewer, node);
  }

  /** A guest's socket, as the terminal fan-out sends to it; undefined for any other viewer. */
  sink(id: number): TermSink | undefined {
    const g = this.guests.get(id);
    if (!g) return undefined;
    const subject = subjects.term(g.node, this.node);
    return {
      send: (b) => {
        const out = new Uint8Array(TERM_HOP_HEADER_BYTES + b.byteLength);
        new DataView(out.buffer).setFloat64(0, g.viewer, true);
        out.set(b, TERM_HOP_HEADER_BYTES);
        // Closed: the guest's node hears of this node's silence, and its viewer is told.
        try { this.nc.publish(subject, out); this.counters.framesOut++; } catch { /* above */ }
      },
    };
  }

  /** An ack from this node's viewer `viewer`: sent to the node serving it (true), or not this bridge's (false). */
  forwardAck(viewer: number, term: unknown, bytes: unknown): boolean {
    const at = this.servedBy.get(viewer);
    if (at === undefined) return false;
    if (typeof term !== 'number' || typeof bytes !== 'number') return false;
    try { this.nc.publish(subjects.termAck(at, this.node), packOp({ viewer, term, bytes })); this.counters.acksOut++; } catch { /* as above */ }
    return true;
  }

  close(): void {
    for (const s of this.subs) s.unsubscribe();
    this.guests.clear();
    this.guestIds.clear();
    this.servedBy.clear();
  }
}
