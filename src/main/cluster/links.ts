/**
 * Hand-off and download links that open on every node. Each node signs its links with a key of
 * its own (workers/relay/link-keys.ts) and publishes the public half in the KV bucket
 * CLUSTER_BUCKET under `pub.<node>` at start, over its own earlier one (so a restarted node's old
 * links stop, as its hand-offs did); its main thread and its relay each watch `pub.>` and keep
 * the keys they see. A link is checked with the key of the node it names (a hand-off's id ends with
 * its node's name), and the node a link reaches serves its viewer through the node holding the
 * hand-off. A node's NATS credential writes its own key only (natsPermissions): it cannot sign for
 * another node, nor stop another node's links.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { ForgeError } from '../../shared/errors.js';
import type { LinkKeys } from '../../workers/relay/link-keys.js';
import { CLUSTER_BUCKET, NODE_NAME_RE, linkKeyName } from './protocol.js';

/**
 * How long a node waits for the keys already published before it serves links, ms: the watch's
 * first values come within milliseconds; past this NATS is not answering, and a node that would
 * refuse every other node's links says so rather than start.
 */
export const LINK_KEYS_LOAD_MS = 10_000;

export interface LinkKeysFollow {
  /** Ends the watch. */
  stop(): void;
}

/**
 * Keeps every node's published key in `keys` (this node's own is never taken from the bucket);
 * resolves once the keys published before this node's own are in. `publish`: this node's own key
 * is written first (the main thread's part; the relay only reads). `unreadable`: a node published
 * something that is not a key, so its links open nothing.
 */
export async function followLinkKeys(nc: NatsConnection, keys: LinkKeys, opts: { publish: boolean; unreadable?: (node: string) => void }): Promise<LinkKeysFollow> {
  const node = keys.node!;
  const kv = await new Kvm(nc).create(CLUSTER_BUCKET, { history: 1 });
  const own = linkKeyName(node);
  const since = opts.publish ? await kv.put(own, keys.ownPublished) : ((await kv.get(own))?.revision ?? 0);
  const prefix = linkKeyName('');
  const watch = await kv.watch({ key: `${prefix}>` });
  let loaded!: () => void;
  const caughtUp = new Promise<void>((r) => { loaded = r; });
  if (since === 0) loaded();
  void (async () => {
    for await (const e of watch) {
      const other = e.key.slice(prefix.length);
      if (NODE_NAME_RE.test(other) && !keys.learn(other, e.operation === 'PUT' ? e.string() : undefined)) opts.unreadable?.(other);
      if (e.revision >= since) loaded();
    }
  })().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new ForgeError('config', `node ${node} did not get the cluster's link keys from ${CLUSTER_BUCKET} within ${LINK_KEYS_LOAD_MS / 1000} s; NATS is not answering`)), LINK_KEYS_LOAD_MS);
  });
  try {
    await Promise.race([caughtUp, late]);
  } catch (e) {
    watch.stop();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return { stop: () => watch.stop() };
}
