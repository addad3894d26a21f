/**
 * A node's connection to NATS: authenticated with the cluster's token, named after the node,
 * reconnecting for as long as the node lives (a restarted nats-server is joined again by itself).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ForgeError } from '../../shared/errors.js';
import type { ClusterConfig } from '../config.js';

/** Bound on the first connection, ms: a node that cannot reach NATS at start says so rather than hang. */
export const NATS_CONNECT_TIMEOUT_MS = 5_000;
/** Wait between reconnection attempts, ms: short, as a node without NATS serves only what it holds. */
export const NATS_RECONNECT_WAIT_MS = 500;

/** `part`: which of the node's connections this is (the main thread's, the relay's), for the server's connection list. */
export async function connectNats(cfg: ClusterConfig, part: string): Promise<NatsConnection> {
  try {
    return await connect({
      servers: cfg.nats,
      name: `forge ${cfg.node} ${part}`,
      ...(cfg.token !== undefined ? { token: cfg.token } : {}),
      ...(cfg.user !== undefined ? { user: cfg.user, pass: cfg.password } : {}),
      timeout: NATS_CONNECT_TIMEOUT_MS,
      maxReconnectAttempts: -1,
      reconnectTimeWait: NATS_RECONNECT_WAIT_MS,
    });
  } catch (e) {
    throw new ForgeError('config', `node ${cfg.node} could not join the cluster at ${cfg.nats.join(', ')}: ${(e as Error).message}`);
  }
}
