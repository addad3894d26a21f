/**
 * `./forge bench cluster [--json] [--seconds N]`: one tab's frames to 200 viewers on the node that
 * owns the tab, against the same 200 viewers spread over two other nodes that get the frames over
 * NATS, in one run. Three relay workers joined to a nats-server on loopback (each with its own
 * NATS connection, as in `forge serve`); the tab is the anim page's recorded frames replayed at
 * 60 fps, so the relays and the hop are measured, not the capture. The last line is one JSON
 * object: {"local": {…}, "remote": {…}, "hop_latency_ms_p50", "nats_bytes_per_frame", …, "mcp":
 * {direct_ms_p50, through_node_ms_p50, hop_ms_p50}, "terminal": {local_bytes_per_s,
 * remote_bytes_per_s, local_echo_ms_p50, remote_echo_ms_p50}} (the last two from two real nodes,
 * bench/cluster-hops.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromRelay, RelayWorkerData, ToRelay } from '../src/workers/relay/protocol.js';
import { linkKeyPair, publishedKey } from '../src/workers/relay/link-keys.js';
import type { FanoutCounters } from '../src/workers/relay/fanout.js';
import type { ClusterConfig } from '../src/main/config.js';
import { LoadGen, TOKEN, root, saveRun, sleep, type ViewerResult } from './harness.js';
import { Replayer } from './replay.js';
import { record } from './record.js';
import { median } from './stamp.js';
import { measureHops } from './cluster-hops.js';

const json = process.argv.includes('--json');
const secIdx = process.argv.indexOf('--seconds');
const SECONDS = secIdx > 0 ? Number(process.argv[secIdx + 1]) : 6;
/** Viewers of the tab in each run: the 200, on one node or split over two. */
const VIEWERS = 200;
const AGENT_KEY = 'fa_bench-agent-key';
const log = (s: string): void => { if (!json) process.stderr.write(s + '\n'); };
const round = (n: number, d = 3): number => Math.round(n * 10 ** d) / 10 ** d;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function startNats(): Promise<{ url: string; token: string; proc: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'forge-bench-nats-'));
  const port = await freePort();
  const token = 'bench-nats-token';
  writeFileSync(join(dir, 'nats.conf'), `host: 127.0.0.1\nport: ${port}\nmax_payload: 4MB\njetstream { store_dir: "${join(dir, 'store')}" }\nauthorization { token: "${token}" }\n`);
  const proc = spawn('nats-server', ['-c', join(dir, 'nats.conf')], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((r) => { const c = connect(port, '127.0.0.1'); c.once('connect', () => { c.destroy(); r(true); }); c.once('error', () => r(false)); });
    if (up) return { url: `nats://127.0.0.1:${port}`, token, proc, dir };
    await sleep(50);
  }
  proc.kill('SIGKILL');
  throw new Error('nats-server did not listen within 10 s');
}

/** One node's relay worker, as `forge serve` starts it with [cluster]. */
class NodeRelay {
  port = 0;
  readonly opened: number[] = [];
  private constructor(readonly worker: Worker, readonly node: string) {}

  static async start(cluster: ClusterConfig): Promise<NodeRelay> {
    const w = new Worker(join(root, 'dist/src/workers/relay/worker.js'), {
      workerData: { host: '127.0.0.1', port: 0, agentKey: AGENT_KEY, viewerToken: TOKEN, tokens: [], linkKey: publishedKey(linkKeyPair().publicKey), profilesRoot: join(root, 'dist/bench-no-profiles'), org: 'bench', webDir: join(root, 'dist/web'), mcpPort: 1, cluster } satisfies RelayWorkerData,
    });
    const r = new NodeRelay(w, cluster.node);
    r.port = await new Promise<number>((resolve, reject) => {
      w.on('message', (m: FromRelay) => {
        if (m.t === 'listening') resolve(m.port);
        else if (m.t === 'listen_failed') reject(new Error(m.message));
        else if (m.t === 'open') r.opened.push(m.viewer);
      });
    });
    return r;
  }

  post(m: ToRelay, transfer?: Parameters<Worker['postMessage']>[1]): void { this.worker.postMessage(m, transfer); }

  stats(): Promise<{ counters: FanoutCounters; cpuMs: number; cluster: Record<string, number> }> {
    const fanout = new Promise<{ counters: FanoutCounters; cpuMs: number }>((resolve) => {
      const on = (m: FromRelay): void => { if (m.t === 'fanout_stats') { this.worker.off('message', on); resolve(m); } };
      this.worker.on('message', on);
      this.post({ t: 'fanout_stats' });
    });
    return Promise.all([fanout, this.clusterCounters()]).then(([f, cluster]) => ({ ...f, cluster }));
  }

  /** forge_cluster_*_total from the relay's /metrics. */
  private async clusterCounters(): Promise<Record<string, number>> {
    const text = await (await fetch(`http://127.0.0.1:${this.port}/metrics`, { headers: { authorization: `Bearer ${AGENT_KEY}` } })).text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^forge_cluster_(\w+)_total (\d+)$/gm)) out[m[1]!] = Number(m[2]);
    return out;
  }

  /** Lets the thread end by itself (its sockets and NATS connection closed); terminates it only past a deadline. */
  async stop(): Promise<void> {
    const exited = new Promise<boolean>((r) => this.worker.once('exit', () => r(true)));
    this.post({ t: 'stop' });
    if (!(await Promise.race([exited, sleep(3000).then(() => false)]))) await this.worker.terminate();
  }
}

interface Side { viewers: ViewerResult[]; cpuMs: Record<string, number>; viewerFrames: Record<string, number>; elapsed: number }

/** Opens `n` viewers on `relay`, each watching through `watch`; resolves with the load generator waiting for go. */
async function viewersOn(relay: NodeRelay, n: number, watch: (id: number) => ToRelay): Promise<LoadGen> {
  const already = relay.opened.length;
  const gen = await LoadGen.start(`ws://127.0.0.1:${relay.port}/ws?token=${TOKEN}`, n, 0, SECONDS, 'trailer');
  while (relay.opened.length < already + n) await sleep(20);
  for (const id of relay.opened.slice(already)) relay.post(watch(id));
  return gen;
}

/** Runs the load generators together and reads each node's relay CPU and fan-out counters around them. */
async function measure(gens: LoadGen[], nodes: NodeRelay[]): Promise<{ side: Side; before: Awaited<ReturnType<NodeRelay['stats']>>[]; after: Awaited<ReturnType<NodeRelay['stats']>>[] }> {
  await sleep(1000);
  const before = await Promise.all(nodes.map((r) => r.stats()));
  for (const g of gens) g.go();
  const results = await Promise.all(gens.map((g) => g.result()));
  const after = await Promise.all(nodes.map((r) => r.stats()));
  const cpuMs: Record<string, number> = {};
  const viewerFrames: Record<string, number> = {};
  nodes.forEach((r, i) => {
    cpuMs[r.node] = after[i]!.cpuMs - before[i]!.cpuMs;
    viewerFrames[r.node] = after[i]!.counters.viewerFrames - before[i]!.counters.viewerFrames;
  });
  return { side: { viewers: results.flatMap((r) => r.viewers), cpuMs, viewerFrames, elapsed: Math.max(...results.map((r) => r.elapsed)) }, before, after };
}

const fpsMedian = (s: Side): number => median(s.viewers.map((v) => v.fps));
const latMedian = (s: Side): number => median(s.viewers.map((v) => v.latency_ms_p50));

log('recording frames from the real pipeline…');
const rec = (await record()).anim;
const nats = await startNats();
const cfg = (node: string): ClusterConfig => ({ nats: [nats.url], node, roles: ['browser', 'terminal', 'viewer', 'mcp'], token: nats.token });
const [owner, v1, v2] = await Promise.all([NodeRelay.start(cfg('owner')), NodeRelay.start(cfg('viewers-1')), NodeRelay.start(cfg('viewers-2'))]);
const result: Record<string, unknown> = {};
try {
  const TAB = 1;
  const replay = new Replayer(rec, TAB);
  owner.post({ t: 'frame_source', source: TAB, port: replay.relayPort, webpRing: replay.ring.sab, webpRingSlots: replay.ring.slots, webpSlotBytes: replay.ring.slotBytes }, [replay.relayPort]);
  replay.start();

  log(`local: ${VIEWERS} viewers on the owning node…`);
  // Two load generators of half the viewers each, as in the remote run: the readers' CPU is the same both ways.
  const localGens: LoadGen[] = [];
  for (let i = 0; i < 2; i++) localGens.push(await viewersOn(owner, VIEWERS / 2, (id) => ({ t: 'watch', viewer: id, source: TAB, frame: TAB })));
  const local = (await measure(localGens, [owner])).side;
  for (const id of owner.opened) owner.post({ t: 'watch', viewer: id, source: TAB, frame: null });

  log(`remote: ${VIEWERS / 2} viewers on each of two other nodes…`);
  // What the owner's main thread posts when another node's first viewer attaches (cluster/viewer-routing.ts).
  for (const n of [v1, v2]) owner.post({ t: 'frame_export', node: n.node, source: TAB, frame: TAB, on: true });
  const gens = await Promise.all([v1, v2].map((n) => viewersOn(n, VIEWERS / 2, (id) => ({ t: 'watch_remote', viewer: id, node: 'owner', frame: TAB }))));
  const m = await measure(gens, [owner, v1, v2]);
  const remote = m.side;
  replay.stop();

  const ownerBefore = m.before[0]!;
  const ownerAfter = m.after[0]!;
  const sourceFrames = ownerAfter.counters.frames - ownerBefore.counters.frames;
  const natsFrames = (ownerAfter.cluster.frames_out ?? 0) - (ownerBefore.cluster.frames_out ?? 0);
  const natsBytes = (ownerAfter.cluster.bytes_out ?? 0) - (ownerBefore.cluster.bytes_out ?? 0);
  const perViewerFrame = (s: Side, node: string): number => s.cpuMs[node]! / Math.max(1, s.viewerFrames[node]!);
  const localFps = fpsMedian(local);
  const remoteFps = fpsMedian(remote);
  Object.assign(result, {
    local: { fps_median: round(localFps, 2), latency_ms_p50: round(latMedian(local), 2), cpu_ms_per_viewer_frame: round(perViewerFrame(local, 'owner'), 4) },
    remote: {
      fps_median: round(remoteFps, 2), latency_ms_p50: round(latMedian(remote), 2),
      cpu_ms_per_viewer_frame: round((remote.cpuMs['viewers-1']! + remote.cpuMs['viewers-2']!) / Math.max(1, remote.viewerFrames['viewers-1']! + remote.viewerFrames['viewers-2']!), 4),
      /** The owner's relay CPU per frame it sent to the two nodes (one publish each). */
      owner_cpu_ms_per_frame: round(remote.cpuMs.owner! / Math.max(1, sourceFrames), 4),
      cpu_ms_per_viewer_frame_by_node: { 'viewers-1': round(perViewerFrame(remote, 'viewers-1'), 4), 'viewers-2': round(perViewerFrame(remote, 'viewers-2'), 4) },
    },
    hop_latency_ms_p50: round(latMedian(remote) - latMedian(local), 2),
    nats_bytes_per_frame: Math.round(natsBytes / Math.max(1, sourceFrames)),
    /** Publishes per source frame: 2 is once per subscribing node; 200 would be once per viewer. */
    nats_publishes_per_frame: round(natsFrames / Math.max(1, sourceFrames), 2),
    remote_fps_pct_of_local: round((remoteFps / localFps) * 100, 1),
  });
  // The relays are done: two real nodes now measure an MCP call's and a terminal's hop.
  await Promise.allSettled([owner.stop(), v1.stop(), v2.stop()]);
  Object.assign(result, await measureHops(nats, log));
} finally {
  await Promise.allSettled([owner.stop(), v1.stop(), v2.stop()]);
  nats.proc.kill('SIGTERM');
  await new Promise((r) => nats.proc.once('exit', r));
  rmSync(nats.dir, { recursive: true, force: true });
}
saveRun('cluster', result);
console.log(JSON.stringify(result));
process.exit(0);
