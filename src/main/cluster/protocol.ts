/**
 * What forge nodes say to each other over NATS: the subjects, the control messages (msgpack
 * objects with an `op`) and the one binary layout, a frame on its way to another node.
 *
 *   forge.node.<node>.viewers.<from>           a viewer on node `from` opened, sent, closed (to the node serving it)
 *   forge.node.<node>.pushes.<from>            what the serving node `from` sends back to those viewers
 *   forge.frames.<owner>.<frame>.<subscriber>  one tab's encoded frames, for one subscribing node
 *   forge.keyframe.<owner>.<subscriber>        a subscribing node asks a whole picture of a tab
 *   forge.term.<subscriber>.<owner>            terminal frames for the subscriber's viewers the owner serves
 *   forge.termack.<owner>.<subscriber>         those viewers' acks, back to the owner
 *   forge.mcp.<owner>.<from>                   an agent's HTTP request, forwarded to the node serving its session
 *   forge.mcpres.<from>.<owner>                its answer, streamed back (see mcp-forward.ts)
 *   forge.dl.<owner>.<from>                    a piece of a download the owner kept, asked with its link (see download-bridge.ts)
 *   forge.presence.<node>                      the node is alive, four times a second: `B:N` (hosts browsers 0/1, profiles it hosts), or `leaving`
 *
 * A frame crosses NATS once per subscribing node, whatever its number of viewers there. Every
 * subject names its sending node, and a receiver takes the sender from the subject, never from
 * the message: with NATS's per-user permissions (natsPermissions) no node can speak for another.
 */
import { Packr, Unpackr } from 'msgpackr';
import type { UncheckedMessage } from '../../shared/protocol.js';
import type { ViewerGrant } from '../../shared/grants.js';

/** The KV bucket of profile leases: key `lease.<org>/<profile>`, value the holding node's name, and each holder's own record (lease-book.ts). */
export const LEASE_BUCKET = 'forge_leases';
/**
 * The KV bucket of what every node publishes about itself: key `pub.<node>`, the public key its
 * hand-off and download links are checked with (cluster/links.ts). A node writes its own key only.
 */
export const CLUSTER_BUCKET = 'forge_cluster';

/** Node `node`'s public link key in CLUSTER_BUCKET. */
export function linkKeyName(node: string): string { return `pub.${node}`; }

/** A node name: one NATS subject token (no dots or wildcards). */
export const NODE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const subjects = {
  viewers: (node: string, from: string): string => `forge.node.${node}.viewers.${from}`,
  pushes: (node: string, from: string): string => `forge.node.${node}.pushes.${from}`,
  frames: (owner: string, frame: number, subscriber: string): string => `forge.frames.${owner}.${frame}.${subscriber}`,
  keyframe: (owner: string, subscriber: string): string => `forge.keyframe.${owner}.${subscriber}`,
  presence: (node: string): string => `forge.presence.${node}`,
  term: (subscriber: string, owner: string): string => `forge.term.${subscriber}.${owner}`,
  termAck: (owner: string, subscriber: string): string => `forge.termack.${owner}.${subscriber}`,
  mcp: (owner: string, from: string): string => `forge.mcp.${owner}.${from}`,
  mcpAnswer: (from: string, owner: string): string => `forge.mcpres.${from}.${owner}`,
  download: (owner: string, from: string): string => `forge.dl.${owner}.${from}`,
};

/** The sending node a subject names: its last token. */
export function senderOf(subject: string): string {
  return subject.slice(subject.lastIndexOf('.') + 1);
}

/**
 * The JetStream API calls a node makes on KV bucket `bucket`: find or make it, read a key, watch
 * it. Not its update, purge or deletion, nor a message's deletion: no node's credential may change
 * a bucket's TTL or erase what another node wrote.
 */
function bucketApi(bucket: string): string[] {
  const s = `KV_${bucket}`;
  return [
    `$JS.API.STREAM.INFO.${s}`, `$JS.API.STREAM.CREATE.${s}`, `$JS.API.DIRECT.GET.${s}.>`, `$JS.API.STREAM.MSG.GET.${s}`,
    `$JS.API.CONSUMER.CREATE.${s}`, `$JS.API.CONSUMER.CREATE.${s}.>`, `$JS.API.CONSUMER.INFO.${s}.>`, `$JS.API.CONSUMER.DELETE.${s}.>`,
  ];
}

/**
 * What node `node` may publish and subscribe to, as a nats-server user's `permissions`: only the
 * subjects naming it as the sender, only the ones addressed to it (and presence), and JetStream
 * for the two buckets. A node's credential then lets it speak for no other node, nor read what
 * is meant for another. In the lease bucket it writes any lease key (holding moves between nodes,
 * which no static permission follows) but only its own holder's records (see lease-book.ts); in
 * the cluster bucket it writes its own public link key and nothing else, so it can neither sign a
 * link another node's door takes for that node's nor stop another node's links.
 */
export function natsPermissions(node: string): { publish: { allow: string[] }; subscribe: { allow: string[] } } {
  return {
    publish: {
      allow: [
        `forge.node.*.viewers.${node}`, `forge.node.*.pushes.${node}`, `forge.frames.${node}.>`, `forge.keyframe.*.${node}`,
        `forge.presence.${node}`, `forge.term.*.${node}`, `forge.termack.*.${node}`, `forge.mcp.*.${node}`, `forge.mcpres.*.${node}`,
        `forge.dl.*.${node}`, '$JS.API.INFO', ...bucketApi(LEASE_BUCKET), ...bucketApi(CLUSTER_BUCKET), '$JS.FC.>',
        `$KV.${LEASE_BUCKET}.lease.>`, `$KV.${LEASE_BUCKET}.held.${node}.>`, `$KV.${CLUSTER_BUCKET}.${linkKeyName(node)}`, '_INBOX.>',
      ],
    },
    subscribe: {
      allow: [
        `forge.node.${node}.>`, `forge.frames.*.*.${node}`, `forge.keyframe.${node}.*`, 'forge.presence.*',
        `forge.term.${node}.*`, `forge.termack.${node}.*`, `forge.mcp.${node}.*`, `forge.mcpres.${node}.*`, `forge.dl.${node}.*`, '_INBOX.>',
      ],
    },
  };
}

/** A viewer connected to node `from`, served by the node it is sent to (the one owning its profile). */
export type ViewerOp =
  | { op: 'open'; from: string; viewer: number; org: string; query: string; grant: ViewerGrant }
  | { op: 'message'; from: string; viewer: number; msg: UncheckedMessage }
  | { op: 'close'; from: string; viewer: number };

/** The serving node's answers to those viewers; `watch` names the frame id of the serving node's tab (null: nothing). */
export type PushOp =
  | { op: 'send'; from: string; viewers: number[]; data: Uint8Array }
  | { op: 'close'; from: string; viewer: number; code: number; reason: string }
  | { op: 'watch'; from: string; viewer: number; frame: number | null };

/** A subscribing node's ask for a whole picture of frame id `frame`. */
export interface KeyframeAsk { node: string; frame: number }

/** A terminal viewer's ack, from the node its socket is on; `viewer` is its id there. */
export interface TermAck { viewer: number; term: number; bytes: number }

/** An agent's request forwarded to the node serving its session; `id` is the reaching node's. */
export type McpAsk =
  | { op: 'req'; id: number; method: string; path: string; headers: Record<string, string>; body?: string }
  | { op: 'abort'; id: number };

/** The serving node's answer to it, in order: one head, chunks of the body, one end. */
export type McpAnswer =
  | { op: 'head'; id: number; status: number; headers: Record<string, string> }
  | { op: 'chunk'; id: number; data: Uint8Array }
  | { op: 'end'; id: number }
  /** The serving node dropped the request unanswered: it took the asking node for gone. */
  | { op: 'dropped'; id: number };

/** A piece of a download another node kept: the link the person's client holds, and the first byte wanted. */
export interface DownloadAsk { k: string; at: number }

/** The keeping node's answer: the piece and the file's whole size, or a refusal in the person's words. */
export type DownloadAnswer =
  | { ok: true; size: number; data: Uint8Array }
  | { ok: false; status: string; words: string };

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false });

export function packOp(m: ViewerOp | PushOp | KeyframeAsk | TermAck | McpAsk | McpAnswer | DownloadAsk | DownloadAnswer): Uint8Array { return packr.pack(m); }

/** A peer's message, or undefined when it is not msgpack (logged by the caller, never thrown past the subscription). */
export function unpackOp<T>(data: Uint8Array): T | undefined {
  try { return unpackr.unpack(data) as T; } catch { return undefined; }
}

/*
 * A frame between nodes: the encoder's messages for one frame, back to back behind a header.
 *
 *   +-----+-------+---------+-------+--------------------------+------------------------+
 *   | seq | flags | baseSeq | parts | part 0 length, part 1 …  | the parts (wire form)… |
 *   | u32 |  u32  |   u32   |  u32  |     u32 each             |                        |
 *   +-----+-------+---------+-------+--------------------------+------------------------+
 *   0     4       8         12      16                         16 + 4*parts
 */
export const HOP_OFF_SEQ = 0;
export const HOP_OFF_FLAGS = 4;
export const HOP_OFF_BASE_SEQ = 8;
export const HOP_OFF_PARTS = 12;
export const HOP_OFF_LENGTHS = 16;
/** Parts one hop frame may carry: the WebpRing's own bound (see shared/ring.ts WEBP_MAX_PARTS). */
export const HOP_MAX_PARTS = 8;

export interface HopFrame { seq: number; flags: number; baseSeq: number; parts: Uint8Array[] }

export function packFrame(f: { seq: number; flags: number; baseSeq: number; parts: readonly Uint8Array[] }): Uint8Array {
  const head = HOP_OFF_LENGTHS + 4 * f.parts.length;
  let total = head;
  for (const p of f.parts) total += p.byteLength;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(HOP_OFF_SEQ, f.seq, true);
  dv.setUint32(HOP_OFF_FLAGS, f.flags, true);
  dv.setUint32(HOP_OFF_BASE_SEQ, f.baseSeq, true);
  dv.setUint32(HOP_OFF_PARTS, f.parts.length, true);
  let off = head;
  f.parts.forEach((p, i) => { dv.setUint32(HOP_OFF_LENGTHS + 4 * i, p.byteLength, true); out.set(p, off); off += p.byteLength; });
  return out;
}

/** The frame in `data` (views into it, no copy), or undefined when the bytes do not hold one whole. */
export function unpackFrame(data: Uint8Array): HopFrame | undefined {
  if (data.byteLength < HOP_OFF_LENGTHS) return undefined;
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const n = dv.getUint32(HOP_OFF_PARTS, true);
  if (n === 0 || n > HOP_MAX_PARTS || data.byteLength < HOP_OFF_LENGTHS + 4 * n) return undefined;
  let off = HOP_OFF_LENGTHS + 4 * n;
  const parts: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const len = dv.getUint32(HOP_OFF_LENGTHS + 4 * i, true);
    if (off + len > data.byteLength) return undefined;
    parts.push(data.subarray(off, off + len));
    off += len;
  }
  return { seq: dv.getUint32(HOP_OFF_SEQ, true), flags: dv.getUint32(HOP_OFF_FLAGS, true), baseSeq: dv.getUint32(HOP_OFF_BASE_SEQ, true), parts };
}
