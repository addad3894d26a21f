/**
 * `./forge bench frames [--json] [--seconds N]`: the test pages (simple, anim, typing) at 1280x720
 * through forge's frame path (damage capture → WebP → relay → a real socket in another process),
 * and in the same run through CDP Page.startScreencast → WebP, which is what other viewers do.
 * Per page: delivered fps, CPU ms per frame of every process involved (Chromium, Xvfb, the
 * server threads; not the viewer), KB per frame, paint-to-socket latency p50/p95. The anim page
 * also runs on each encoder (libwebp directly, sharp on libuv's pool, sharp in a piscina pool), to
 * keep the fastest.
 * The last line printed is one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { BrowserHost } from '../src/main/browser/host/host.js';
import { FramePipeline } from '../src/main/browser/host/pipeline.js';
import { CdpConnection } from '../src/workers/cdp/connection.js';
import type { EncodeMode } from '../src/workers/encode/protocol.js';
import { DEFAULT_ENCODE_MODE, WEBP_EFFORT, WEBP_QUALITY } from '../src/workers/encode/protocol.js';
import { LoadGen, Relay, saveRun, groupCpuMs, selfCpuMs, servePages, sleep } from './harness.js';
import { median, percentile, readStamp, stampAge } from './stamp.js';

const json = process.argv.includes('--json');
const secIdx = process.argv.indexOf('--seconds');
const SECONDS = secIdx > 0 ? Number(process.argv[secIdx + 1]) : 8;
const listArg = (name: string, all: readonly string[]): string[] => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]!.split(',').filter((p) => all.includes(p)) : [...all];
};
/** `--pages simple,anim` runs only those; `--no-screencast` skips the screencast side; `--modes libuv,native,piscina` orders the anim encoder runs. */
const PAGES = listArg('pages', ['simple', 'anim', 'typing']);
const SCREENCAST = !process.argv.includes('--no-screencast');
const MODES = listArg('modes', ['native', 'libuv', 'piscina']) as EncodeMode[];
/** The pool the pages run on: the default, or the first of `--modes` (so runs can alternate which goes first). */
const MAIN_MODE = process.argv.includes('--modes') ? MODES[0]! : DEFAULT_ENCODE_MODE;
/** Screencast JPEG quality: what viewers built on screencast commonly use. */
const SCREENCAST_JPEG_QUALITY = 80;

interface Figures {
  fps: number; cpu_ms_per_frame: number; kb_per_frame: number; latency_ms_p50: number; latency_ms_p95: number;
  /** Frames the page itself ran (requestAnimationFrame callbacks per second) while forge captured it: the ceiling of `fps`. */
  page_fps?: number;
}
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const log = (s: string): void => { if (!json) process.stderr.write(s + '\n'); };

const { server, base } = await servePages();
const profileDir = mkdtempSync(join(tmpdir(), 'forge-bench-frames-'));
const host = new BrowserHost({ profileKey: 'bench/frames', profileDir });
await host.start();
const relay = await Relay.start();
const cdp = await CdpConnection.connect(host.wsEndpoint);
const hostCpu = (): number => groupCpuMs([host.pid, host.xvfbPid]) + selfCpuMs();

let sourceId = 0;
let tabId = 0;

async function forgePath(pipeline: FramePipeline, source: number, page: string): Promise<Figures> {
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `${base}/${page}.html`, newWindow: true });
  const tab = ++tabId;
  await sleep(500);
  await pipeline.capture(targetId, tab, 1280, 720);
  const gen = await LoadGen.start(`ws://127.0.0.1:${relay.port}/ws?token=bench-token`, 1, 0, SECONDS, 'stamp');
  await sleep(200);
  relay.post({ t: 'watch', viewer: relay.opened[relay.opened.length - 1]!, source, frame: tab });
  await sleep(1000); // warm-up: the first keyframe, page faults of fresh ring slots
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  const evaluate = async <T>(expression: string): Promise<T> =>
    (await cdp.send<{ result: { value: T } }>('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
  await evaluate('window.__forgeRaf = { n: 0, t0: performance.now() }; (function count() { window.__forgeRaf.n++; requestAnimationFrame(count); })(); 0');
  const cpu0 = hostCpu();
  gen.go();
  const r = await gen.result();
  const cpu = hostCpu() - cpu0;
  const raf = await evaluate<{ n: number; ms: number }>('({ n: window.__forgeRaf.n, ms: performance.now() - window.__forgeRaf.t0 })');
  await pipeline.uncapture(targetId);
  await cdp.send('Target.closeTarget', { targetId });
  const v = r.viewers[0]!;
  return { fps: v.fps, cpu_ms_per_frame: cpu / Math.max(1, v.frames), kb_per_frame: v.kb_per_frame, latency_ms_p50: v.latency_ms_p50, latency_ms_p95: v.latency_ms_p95, page_fps: raf.n / (raf.ms / 1000) };
}

/** CDP screencast → decode → WebP, newest frame only (one encode at a time, older frames dropped). */
async function screencastPath(page: string): Promise<Figures> {
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `${base}/${page}.html`, newWindow: true });
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  const { windowId } = await cdp.send<{ windowId: number }>('Browser.getWindowForTarget', { targetId });
  // Same 1280x720 viewport: the window's chrome is measured as the capture does.
  await cdp.send('Browser.setWindowBounds', { windowId, bounds: { width: 1280, height: 807 } });
  await sleep(500);
  const vp = (await cdp.send<{ result: { value: number[] } }>('Runtime.evaluate', { expression: '[innerWidth, innerHeight]', returnByValue: true }, sessionId)).result.value;
  if (vp[1] !== 720) await cdp.send('Browser.setWindowBounds', { windowId, bounds: { width: 1280, height: 807 + 720 - vp[1]! } });
  await sleep(300);
  let counting = false;
  let frames = 0, bytes = 0;
  const latencies: number[] = [];
  let pending: { data: string; at: number } | undefined;
  let busy = false;
  const pump = async (): Promise<void> => {
    if (busy || !pending) return;
    busy = true;
    const p = pending;
    pending = undefined;
    try {
      const { data: px, info } = await sharp(Buffer.from(p.data, 'base64')).raw().toBuffer({ resolveWithObject: true });
      const webp = await sharp(px, { raw: { width: info.width, height: info.height, channels: info.channels } })
        .webp({ quality: WEBP_QUALITY, effort: WEBP_EFFORT, smartSubsample: false }).toBuffer();
      if (counting) {
        frames++;
        bytes += webp.byteLength;
        if (info.height >= 720) {
          const stamp = readStamp(px, info.width, info.channels, 0, 0);
          if (stamp !== undefined) latencies.push(stampAge(stamp));
        }
      }
    } finally {
      busy = false;
      void pump();
    }
  };
  cdp.on('Page.screencastFrame', (f: { data: string; sessionId: number }, sid?: string) => {
    if (sid !== sessionId) return;
    void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }, sessionId).catch(() => undefined);
    pending = { data: f.data, at: Date.now() };
    void pump();
  });
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: SCREENCAST_JPEG_QUALITY, maxWidth: 1280, maxHeight: 720, everyNthFrame: 1 }, sessionId);
  await sleep(1000);
  const cpu0 = hostCpu();
  const t0 = performance.now();
  counting = true;
  await sleep(SECONDS * 1000);
  counting = false;
  const cpu = hostCpu() - cpu0;
  const elapsed = (performance.now() - t0) / 1000;
  await cdp.send('Page.stopScreencast', {}, sessionId).catch(() => undefined);
  await cdp.send('Target.closeTarget', { targetId });
  return { fps: frames / elapsed, cpu_ms_per_frame: cpu / Math.max(1, frames), kb_per_frame: frames ? bytes / frames / 1024 : 0, latency_ms_p50: median(latencies), latency_ms_p95: percentile(latencies, 95) };
}

async function startPipeline(mode: EncodeMode): Promise<{ pipeline: FramePipeline; source: number }> {
  const pipeline = await FramePipeline.start(host, { mode });
  const source = ++sourceId;
  const src = pipeline.relaySource();
  relay.post({ t: 'frame_source', source, ...src }, [src.port]);
  return { pipeline, source };
}

const roundAll = (f: Figures): Figures => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round(v)])) as unknown as Figures;
const result: { pages: Record<string, Figures & { screencast?: Figures }>; encode_modes: Record<EncodeMode, Figures> } = { pages: {}, encode_modes: {} as Record<EncodeMode, Figures> };
try {
  const main = await startPipeline(MAIN_MODE);
  for (const page of PAGES) {
    log(`${page}: forge path…`);
    const forge = roundAll(await forgePath(main.pipeline, main.source, page));
    log(`${page}: screencast…`);
    result.pages[page] = SCREENCAST ? { ...forge, screencast: roundAll(await screencastPath(page)) } : forge;
    if (page === 'anim') result.encode_modes[MAIN_MODE] = forge;
    log(`${page}: ${JSON.stringify(result.pages[page])}`);
  }
  await main.pipeline.stop();
  relay.post({ t: 'frame_source_end', source: main.source });
  for (const mode of MODES) {
    if (result.encode_modes[mode] && PAGES.includes('anim')) continue;
    log(`anim with the ${mode} pool…`);
    const other = await startPipeline(mode);
    // Each pool is measured as itself, and must deliver: a pool that fell back or sent nothing fails the run.
    if (other.pipeline.encodeMode !== mode) throw new Error(`the ${mode} encoder did not run (${other.pipeline.encodeFallback || other.pipeline.encodeMode})`);
    result.encode_modes[mode] = roundAll(await forgePath(other.pipeline, other.source, 'anim'));
    if (!(result.encode_modes[mode].fps > 0)) throw new Error(`the ${mode} encoder delivered no frames of anim`);
    await other.pipeline.stop();
    relay.post({ t: 'frame_source_end', source: other.source });
  }
} finally {
  await cdp.close();
  await relay.stop();
  await host.stop();
  server.close();
  rmSync(profileDir, { recursive: true, force: true });
}
if (!json) console.table(Object.fromEntries(Object.entries(result.pages).flatMap(([p, f]) => [[p, { ...f, screencast: undefined }], ...(f.screencast ? [[`${p} (screencast)`, f.screencast]] : [])])));
// A run of some pages, or without the screencast, is kept apart from the full runs the baseline compares.
const partial = PAGES.length < 3 || !SCREENCAST || process.argv.includes('--modes');
saveRun(partial ? 'frames-partial' : 'frames', result);
console.log(JSON.stringify(result));
process.exit(0);
