/** A cluster for a test: one real nats-server and a forge node per name on it, stopped together. */
import { startForge, type RunningServer } from './server.js';
import { startNats, clusterToml, type RunningNats } from './nats.js';

export interface TestCluster<N extends string = string> {
  nats: RunningNats;
  /** The nodes by name, as started. */
  nodes: Record<N, RunningServer>;
  /** Stops every node (one already killed is skipped) and the NATS server. */
  stop: () => Promise<void>;
}

/**
 * `users`: each node joins as its own NATS user, held to forge's per-node permissions, instead of
 * the shared token. `roles`: a node's [cluster] roles, where not all four. `toml`: more of every
 * node's forge.toml (its projects' profiles, say).
 */
export async function startCluster<N extends string>(names: N[], opts: { users?: boolean; roles?: Partial<Record<N, string[]>>; toml?: string } = {}): Promise<TestCluster<N>> {
  const nats = await startNats(opts.users ? { users: names } : {});
  const started = await Promise.allSettled(names.map((n) => startForge({ toml: `${opts.toml ?? ''}\n${clusterToml(nats, n, opts.roles?.[n])}` })));
  const nodes = {} as Record<N, RunningServer>;
  started.forEach((s, i) => { if (s.status === 'fulfilled') nodes[names[i]!] = s.value; });
  const stop = async (): Promise<void> => {
    await Promise.allSettled(Object.values<RunningServer>(nodes).map((n) => n.stop()));
    await nats.stop();
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) { await stop(); throw failed.reason; }
  return { nats, nodes, stop };
}
