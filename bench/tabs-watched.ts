/**
 * `./forge bench tabs-watched [--json] [--seconds N]`: one host with 1, 2, 4 and 8 of its tabs
 * watched at once (half the `anim` page, half `typing`), each by its own viewer on a real socket
 * in another process, through forge's frame path (damage capture → WebP → relay). Per count: the
 * lowest and the median delivered fps of its tabs, and the CPU ms per delivered frame of every
 * process involved (Chromium, Xvfb, the server's threads; not the viewers). Then the same 8 tabs
 * open with nobody watching: the CPU the host spends on them in the background, in percent of one
 * core. The last line printed is one JSON object:
 * `{"watched": {"1": {"fps_min", "fps_median", "cpu_ms_per_frame"}, …, "8": {…}}, "unwatched_cpu_pct"}`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserHost } from '../src/main/browser/host/host.js';
import { FramePipeline } from '../src/main/browser/host/pipeline.js';
import { CdpConnection } from '../src/workers/cdp/connection.js';
import { PARK_LEFT } from '../src/workers/cdp/windows.js';
import { DEFAULT_ENCODE_MODE } from '../src/workers/encode/protocol.js';
import { LoadGen, Relay, saveRun, groupCpuMs, selfCpuMs, servePages, sleep } from './harness.js';
import { median } from './stamp.js';

const json = process.argv.includes('--json');
const secIdx = process.argv.indexOf('--seconds');
/** Measured seconds per count. */
const SECONDS = secIdx > 0 ? Number(process.argv[secIdx + 1]) : 6;
/** How many tabs are watched at once, in turn: the 1, 2, 4 and 8. */
const COUNTS = [1, 2, 4, 8] as const;
/** The watched tabs' layout, CSS px: the frames bench's, so the figures compare. */
const WIDTH = 1280;
const HEIGHT = 720;
/** Wait after the viewers start watching before the count starts, ms: first keyframes, fresh ring slots' page faults. */
const WARM_MS = 1_500;

const log = (s: string): void => { if (!json) process.stderr.write(s + '\n'); };
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

const { server, base } = await servePages();
const profileDir = mkdtempSync(join(tmpdir(), 'forge-bench-tabs-watched-'));
const host = new BrowserHost({ profileKey: 'bench/tabs-watched', profileDir });
await host.start();
const relay = await Relay.start();
const cdp = await CdpConnection.connect(host.wsEndpoint);
const hostCpu = (): number => groupCpuMs([host.pid, host.xvfbPid]) + selfCpuMs();

interface Watched { fps_min: number; fps_median: number; anim_fps_min: number; typing_fps_min?: number; cpu_ms_per_frame: number }
const result: { watched: Record<string, Watched>; refused: Record<string, string>; unwatched_cpu_pct: number } = { watched: {}, refused: {}, unwatched_cpu_pct: 0 };

/** Opens `n` tabs, half anim and half typing (anim first). */
async function openTabs(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const page = i % 2 === 0 ? 'anim' : 'typing';
    // Born off-screen as forge opens its tabs: an unwatched tab's window covers no watched one.
    ids.push((await cdp.send<{ targetId: string }>('Target.createTarget', { url: `${base}/${page}.html`, newWindow: true, left: PARK_LEFT, top: 0, width: WIDTH, height: HEIGHT })).targetId);
  }
  await sleep(800);
  return ids;
}

async function closeTabs(ids: string[]): Promise<void> {
  for (const targetId of ids) await cdp.send('Target.closeTarget', { targetId }).catch(() => undefined);
}

try {
  const pipeline = await FramePipeline.start(host, { mode: DEFAULT_ENCODE_MODE });
  const source = 1;
  const src = pipeline.relaySource();
  relay.post({ t: 'frame_source', source, ...src }, [src.port]);
  let tabId = 0;
  for (const n of COUNTS) {
    log(`${n} watched…`);
    const ids = await openTabs(n);
    const tabs: number[] = [];
    let refused = '';
    for (const targetId of ids) {
      const tab = ++tabId;
      // The host's screen tiles a bounded number of watched windows: past it the count is the ceiling, said in words.
      try { await pipeline.capture(targetId, tab, WIDTH, HEIGHT); tabs.push(tab); } catch (e) { refused = (e as Error).message; break; }
    }
    if (refused) {
      result.refused[String(n)] = refused;
      log(`${n} watched: ${refused}`);
      for (const targetId of ids) await pipeline.uncapture(targetId).catch(() => undefined);
      await closeTabs(ids);
      continue;
    }
    const gen = await LoadGen.start(`ws://127.0.0.1:${relay.port}/ws?token=bench-token`, n, 0, SECONDS, 'stamp');
    await sleep(200);
    const viewers = relay.opened.slice(-n);
    for (const [i, viewer] of viewers.entries()) relay.post({ t: 'watch', viewer, source, frame: tabs[i]! });
    await sleep(WARM_MS);
    const cpu0 = hostCpu();
    gen.go();
    const r = await gen.result();
    const cpu = hostCpu() - cpu0;
    const fps = r.viewers.map((v) => v.fps).sort((a, b) => a - b);
    // Viewer i watched tab i: anim on the even ones, typing (a paced typist, ~10 changes a second) on the odd.
    const kindMin = (odd: number): number => round(Math.min(...r.viewers.filter((_, i) => i % 2 === odd).map((v) => v.fps)));
    const frames = r.viewers.reduce((s, v) => s + v.frames, 0);
    result.watched[String(n)] = {
      fps_min: round(fps[0] ?? 0), fps_median: round(median(fps)), anim_fps_min: kindMin(0), ...(n > 1 ? { typing_fps_min: kindMin(1) } : {}),
      cpu_ms_per_frame: round(cpu / Math.max(1, frames)),
    };
    log(`${n} watched: ${JSON.stringify(result.watched[String(n)])}`);
    for (const targetId of ids) await pipeline.uncapture(targetId);
    await closeTabs(ids);
    await sleep(500);
  }
  await pipeline.stop();
  relay.post({ t: 'frame_source_end', source });

  // The same tabs with nobody watching: what their pages cost the host in the background.
  log('8 unwatched…');
  const ids = await openTabs(COUNTS[COUNTS.length - 1]);
  await sleep(WARM_MS);
  const cpu0 = hostCpu();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  result.unwatched_cpu_pct = round(((hostCpu() - cpu0) / (performance.now() - t0)) * 100, 1);
  await closeTabs(ids);
} finally {
  await cdp.close();
  await relay.stop();
  await host.stop();
  server.close();
  rmSync(profileDir, { recursive: true, force: true });
}
if (!json) console.table(result.watched);
saveRun('tabs-watched', result);
console.log(JSON.stringify(result));
process.exit(0);
