/**
 * Hand-off links that open on every node. The nodes sign links with one secret, kept in the KV
 * bucket CLUSTER_BUCKET (the first node to start writes a fresh one, the others read it), so any
 * node's door can check a link another node printed; and a hand-off's id ends with its node's
 * name, so the node a link reaches serves its viewer through the node holding the hand-off, as it
 * serves any other viewer of a profile hosted elsewhere. The link's scope is its own node's: one
 * page of one parked hand-off, closed with its answer.
 */
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { CLUSTER_BUCKET } from './protocol.js';

/** The cluster bucket's key holding the secret that signs hand-off and download links. */
const LINK_SECRET_KEY = 'link_secret';
/** Bytes of randomness in the link secret: 256 bits, as a lone node's. */
const LINK_SECRET_BYTES = 32;

/** The cluster's link secret: the one already in the bucket, or a fresh one this node writes there first. */
export async function clusterLinkSecret(nc: NatsConnection): Promise<string> {
  const kv = await new Kvm(nc).create(CLUSTER_BUCKET, { history: 1 });
  const mine = randomBytes(LINK_SECRET_BYTES).toString('base64url');
  try {
    await kv.create(LINK_SECRET_KEY, mine);
    return mine;
  } catch {
    // Another node wrote it first.
    const e = await kv.get(LINK_SECRET_KEY);
    if (!e || e.operation !== 'PUT') throw new Error(`the cluster's link secret in ${CLUSTER_BUCKET} could not be read`);
    return e.string();
  }
}

/** The node holding hand-off `id`, `ho-<random hex>-<node>` (browser/handoff.ts); undefined for a lone node's id, which names none. */
export function handOffNode(id: string): string | undefined {
  return /^ho-[0-9a-f]+-([A-Za-z0-9][A-Za-z0-9_-]*)$/.exec(id)?.[1];
}
