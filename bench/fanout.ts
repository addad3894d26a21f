/**
 * `./forge bench fanout [--json] [--seconds N]`: forge's relay (uWS, newest-frame fan-out) to many
 * viewers over real sockets, the viewers in a separate load-generator process. Frames are
 * recorded first from the real pipeline (the anim page: ~32 KB whole frames; the simple page:
 * small patches) and replayed at 60 fps, so only the relay is measured. Runs: anim to 1/10/100/200
 * viewers, anim to 200 with 10% slow viewers (they stop reading), simple to 1 and to 1000, and
 * anim to 200 through a plain `ws` relay. The last line printed is one JSON object.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { LoadGen, Relay, saveRun, root, sleep, type ViewerResult } from './harness.js';
import { Replayer, type Recorded } from './replay.js';
import { record } from './record.js';
import { median } from './stamp.js';

const json = process.argv.includes('--json');
const secIdx = process.argv.indexOf('--seconds');
const SECONDS = secIdx > 0 ? Number(process.argv[secIdx + 1]) : 6;
const log = (s: string): void => { if (!json) process.stderr.write(s + '\n'); };
const round = (n: number, d = 3): number => Math.round(n * 10 ** d) / 10 ** d;

interface Run { viewers: ViewerResult[]; relayCpuMs: number; viewerFrames: number; elapsed: number; maxFramesHeld: number }

let tabSeq = 0;
async function forgeRun(relay: Relay, frames: Recorded[], viewers: number, slow: number): Promise<Run> {
  const tab = ++tabSeq;
  const replay = new Replayer(frames, tab);
  relay.post({ t: 'frame_source', source: tab, port: replay.relayPort, webpRing: replay.ring.sab, webpRingSlots: replay.ring.slots, webpSlotBytes: replay.ring.slotBytes }, [replay.relayPort]);
  const already = relay.opened.length;
  const gen = await LoadGen.start(`ws://127.0.0.1:${relay.port}/ws?token=bench-token`, viewers, slow, SECONDS, 'trailer');
  while (relay.opened.length < already + viewers) await sleep(20);
  for (const id of relay.opened.slice(already)) relay.post({ t: 'watch', viewer: id, source: tab, frame: tab });
  replay.start();
  await sleep(1000);
  const s0 = await relay.stats();
  gen.go();
  const r = await gen.result();
  const s1 = await relay.stats();
  replay.stop();
  relay.post({ t: 'frame_source_end', source: tab });
  await sleep(300);
  return { viewers: r.viewers, relayCpuMs: s1.cpuMs - s0.cpuMs, viewerFrames: s1.counters.viewerFrames - s0.counters.viewerFrames, elapsed: r.elapsed, maxFramesHeld: s1.counters.maxFramesHeld };
}

/** A comparison relay in its own worker: `ws-relay` (what one would write with `ws`) or `uws-relay` (uWS with nothing on top). */
async function plainRun(script: 'ws-relay' | 'uws-relay', frames: Recorded[], viewers: number): Promise<Run> {
  const tab = ++tabSeq;
  const replay = new Replayer(frames, tab);
  const w = new Worker(join(root, `dist/bench/${script}.js`), {
    workerData: { port: replay.relayPort, webpRing: replay.ring.sab, webpRingSlots: replay.ring.slots, webpSlotBytes: replay.ring.slotBytes, tab },
    transferList: [replay.relayPort],
  });
  const port = await new Promise<number>((r) => w.once('message', (m: { port: number }) => r(m.port)));
  const stats = (): Promise<{ viewerFrames: number; cpuMs: number }> => new Promise((r) => { w.once('message', r); w.postMessage({ t: 'stats' }); });
  const gen = await LoadGen.start(`ws://127.0.0.1:${port}/`, viewers, 0, SECONDS, 'trailer');
  replay.start();
  await sleep(1000);
  const s0 = await stats();
  gen.go();
  const r = await gen.result();
  const s1 = await stats();
  replay.stop();
  w.postMessage({ t: 'stop' });
  await sleep(200);
  await w.terminate();
  return { viewers: r.viewers, relayCpuMs: s1.cpuMs - s0.cpuMs, viewerFrames: s1.viewerFrames - s0.viewerFrames, elapsed: r.elapsed, maxFramesHeld: 0 };
}

const fast = (r: Run): ViewerResult[] => r.viewers.filter((v) => !v.slow);
const fpsMedian = (r: Run): number => median(fast(r).map((v) => v.fps));
const latMedian = (r: Run): number => median(fast(r).map((v) => v.latency_ms_p50));

const wsRun = (frames: Recorded[], viewers: number): Promise<Run> => plainRun('ws-relay', frames, viewers);

/**
 * `--ratio N`: only the relay-CPU comparison, N rounds of forge's relay, the ws relay and bare uWS
 * (the floor: uWS's send alone) to 200 anim viewers (~32 KB whole frames), then forge's relay and
 * the ws relay to 1000 simple viewers (small patches), alternating.
 */
const ratioIdx = process.argv.indexOf('--ratio');
const RATIO_ROUNDS = ratioIdx > 0 ? Number(process.argv[ratioIdx + 1]) : 0;
/** Relay CPU ms per frame sent to one viewer, over one or more runs together. */
const perViewerFrame = (...rs: Run[]): number =>
  rs.reduce((a, r) => a + r.relayCpuMs, 0) / Math.max(1, rs.reduce((a, r) => a + r.viewerFrames, 0));

log('recording frames from the real pipeline…');
const rec = await record();
log(`recorded anim ${rec.anim.length} frames, simple ${rec.simple.length}`);
const relay = await Relay.start();
const result: Record<string, unknown> = {};
try {
  if (RATIO_ROUNDS > 0) {
    const rounds: Array<{ workload_ratio: number; forge: number; ws: number; uws: number; ratio: number; floor_ratio: number; patches_ratio: number; load: number }> = [];
    for (let i = 0; i < RATIO_ROUNDS; i++) {
      const load = loadavg()[0]!;
      const forgeAnim = await forgeRun(relay, rec.anim, 200, 0);
      const wsAnim = await wsRun(rec.anim, 200);
      const uws = perViewerFrame(await plainRun('uws-relay', rec.anim, 200));
      const forgePatches = await forgeRun(relay, rec.simple, 1000, 0);
      const wsPatches = await wsRun(rec.simple, 1000);
      const [forge, ws] = [perViewerFrame(forgeAnim), perViewerFrame(wsAnim)];
      rounds.push({
        workload_ratio: round(perViewerFrame(forgeAnim, forgePatches) / perViewerFrame(wsAnim, wsPatches), 3),
        forge: round(forge, 4), ws: round(ws, 4), uws: round(uws, 4), ratio: round(forge / ws, 3), floor_ratio: round(uws / ws, 3),
        patches_ratio: round(perViewerFrame(forgePatches) / perViewerFrame(wsPatches), 3), load: round(load, 2),
      });
      log(`  round ${i + 1}: ${JSON.stringify(rounds[i])}`);
    }
    Object.assign(result, {
      /** Forge's relay over the ws relay per viewer-frame on the fan-out's workload: both loads of a round together. */
      workload_ratio_median: round(median(rounds.map((r) => r.workload_ratio)), 3),
      relay_cpu_ms_per_viewer_frame: round(median(rounds.map((r) => r.forge)), 4),
      ws_relay_cpu_ms_per_viewer_frame: round(median(rounds.map((r) => r.ws)), 4),
      uws_bare_relay_cpu_ms_per_viewer_frame: round(median(rounds.map((r) => r.uws)), 4),
      /** On whole anim frames (~32 KB) to 200 viewers alone. */
      ratio_median: round(median(rounds.map((r) => r.ratio)), 3),
      /** Bare uWS over the ws relay: the lowest ratio any relay on uWS could reach here. */
      floor_ratio_median: round(median(rounds.map((r) => r.floor_ratio)), 3),
      /** The same ratio on the simple page's small patches to 1000 viewers. */
      patches_ratio_median: round(median(rounds.map((r) => r.patches_ratio)), 3),
      rounds,
    });
  } else {
    const viewersOut: Record<string, { fps_median: number; latency_ms_p50: number }> = {};
    const runs: Record<string, Run> = {};
    for (const n of [1, 10, 100, 200]) {
      log(`anim → ${n} viewers…`);
      runs[n] = await forgeRun(relay, rec.anim, n, 0);
      viewersOut[n] = { fps_median: round(fpsMedian(runs[n]!), 2), latency_ms_p50: round(latMedian(runs[n]!), 2) };
      log(`  ${JSON.stringify(viewersOut[n])}`);
  }
  log('anim → 200 viewers, 20 of them slow…');
  const slowRun = await forgeRun(relay, rec.anim, 200, 20);
  log('simple → 1 viewer…');
  const simple1 = await forgeRun(relay, rec.simple, 1, 0);
  log('simple → 1000 viewers…');
  const simple1000 = await forgeRun(relay, rec.simple, 1000, 0);
  const rss = process.memoryUsage().rss / 1024 / 1024;
  log('anim → 200 viewers through a plain ws relay…');
  const ws200 = await wsRun(rec.anim, 200);
  log('simple → 1000 viewers through a plain ws relay…');
  const wsSimple1000 = await wsRun(rec.simple, 1000);
  log('anim → 200 viewers through bare uWS (the floor)…');
  const uws200 = await plainRun('uws-relay', rec.anim, 200);
  const r200 = runs[200]!;
  Object.assign(result, {
    viewers: viewersOut,
    simple_1000: { fps_median: round(fpsMedian(simple1000), 2), single_fps_median: round(fpsMedian(simple1), 2) },
    relay_cpu_pct_200: round((r200.relayCpuMs / (r200.elapsed * 1000)) * 100, 1),
    slow_viewers_fps_change_pct: round(((fpsMedian(slowRun) - fpsMedian(r200)) / fpsMedian(r200)) * 100, 1),
    slow_viewer_max_frames_held: slowRun.maxFramesHeld,
    // Over the run's fan-out workload, both loads: whole ~32 KB frames to 200 viewers and small patches to 1000.
    relay_cpu_ms_per_viewer_frame: round(perViewerFrame(r200, simple1000), 4),
    ws_relay_cpu_ms_per_viewer_frame: round(perViewerFrame(ws200, wsSimple1000), 4),
    /** Each load on its own, forge's relay over the ws relay; `anim_200_floor` is bare uWS's over ws, the lowest any uWS relay reaches. */
    relay_ratio_by_load: {
      anim_200: round(perViewerFrame(r200) / perViewerFrame(ws200), 3),
      simple_1000: round(perViewerFrame(simple1000) / perViewerFrame(wsSimple1000), 3),
      anim_200_floor: round(perViewerFrame(uws200) / perViewerFrame(ws200), 3),
    },
    server_rss_mb: round(rss, 1),
    ws_relay_fps_median_200: round(fpsMedian(ws200), 2),
    simple_1000_relay_cpu_ms_per_viewer_frame: round(perViewerFrame(simple1000), 4),
  });
  }
} finally {
  await relay.stop();
}
saveRun(RATIO_ROUNDS > 0 ? 'fanout-ratio' : 'fanout', result);
console.log(JSON.stringify(result));
process.exit(0);
