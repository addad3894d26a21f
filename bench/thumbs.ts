/**
 * `./forge bench thumbs [--json] [--seconds N] [--rounds N]`: what the home's live thumbnails
 * cost. THUMB_TABS_MAX tabs of a moving page (1280x720, parked off the host's screen as unwatched
 * tabs are) are shot as the server does (`shootThumb` on ThumbClock's budget), beside a CDP
 * screencast of the same tabs at the same width and rate, and beside the tabs left alone. CPU is
 * every process (Chromium, its display, this process, which decodes what CDP sends as the server
 * would), counted over the alone run's: the thumbnails' own cost, as % of one core. The runs
 * alternate, `--rounds` times, and the median is kept.
 * The last line printed is one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserHost } from '../src/main/browser/host/host.js';
import { CdpConnection } from '../src/workers/cdp/connection.js';
import { PARK_LEFT } from '../src/workers/cdp/windows.js';
import { THUMB_PERIOD_MS, THUMB_SHOTS_PER_S, THUMB_TABS_MAX, THUMB_TICK_MS, THUMB_WIDTH_PX, ThumbClock, shootThumb, withinShotDeadline } from '../src/main/browser/thumb-shot.js';
import { groupCpuMs, saveRun, selfCpuMs, servePages, sleep } from './harness.js';
import { median } from './stamp.js';

const json = process.argv.includes('--json');
const arg = (name: string, d: number): number => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : d; };
const SECONDS = arg('seconds', 6);
const ROUNDS = arg('rounds', 3);
/** `--page simple` (60 Hz) or `anim` for heavier pages; the default changes ten times a second, so its own cost does not drown the thumbnails'. */
const pageIdx = process.argv.indexOf('--page');
const PAGE = pageIdx > 0 ? process.argv[pageIdx + 1]! : 'ticker';
/** The goal: 8 tabs' thumbnails within a tenth of one core. */
const GOAL_CPU_PCT = 10;
/** The page's frame rate, for the screencast's everyNthFrame to land near the thumbnails' rate. */
const PAGE_HZ = 60;
const SCREENCAST_JPEG_QUALITY = 50;
const log = (s: string): void => { if (!json) process.stderr.write(s + '\n'); };
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

interface Run { cpu_pct: number; fps_per_tab: number; kb_per_thumb: number }

const { server, base } = await servePages();
const profileDir = mkdtempSync(join(tmpdir(), 'forge-bench-thumbs-'));
const host = new BrowserHost({ profileKey: 'bench/thumbs', profileDir });
await host.start();
const cdp = await CdpConnection.connect(host.wsEndpoint);
const cpuMs = (): number => groupCpuMs([host.pid, host.xvfbPid]) + selfCpuMs();

const tabs: Array<{ targetId: string; sessionId: string }> = [];
for (let i = 0; i < THUMB_TABS_MAX; i++) {
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `${base}/${PAGE}.html`, newWindow: true });
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  const { windowId } = await cdp.send<{ windowId: number }>('Browser.getWindowForTarget', { targetId });
  await cdp.send('Browser.setWindowBounds', { windowId, bounds: { left: PARK_LEFT, top: 0, width: 1280, height: 807 } });
  tabs.push({ targetId, sessionId });
}
await sleep(1500);
for (const t of tabs) await cdp.send('Runtime.evaluate', { expression: 'window.__resizes = 0; addEventListener("resize", () => window.__resizes++); 0' }, t.sessionId);

async function measure(work: (stop: () => boolean) => Promise<{ thumbs: number; bytes: number }>): Promise<{ cpuMs: number; secs: number; thumbs: number; bytes: number }> {
  const cpu0 = cpuMs();
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  const r = await work(() => performance.now() >= end);
  return { cpuMs: cpuMs() - cpu0, secs: (performance.now() - t0) / 1000, ...r };
}

const alone = (): ReturnType<typeof measure> => measure(async () => { await sleep(SECONDS * 1000); return { thumbs: 0, bytes: 0 }; });

/** The server's way: its clock (THUMB_SHOTS_PER_S across the tabs, THUMB_PERIOD_MS apart each) picks the tabs due. */
const shots = (): ReturnType<typeof measure> => measure(async (stop) => {
  let thumbs = 0, bytes = 0;
  const clock = new ThumbClock();
  const state = tabs.map((t) => ({ ...t, lastBegan: 0, busy: false }));
  const running: Array<Promise<void>> = [];
  while (!stop()) {
    for (const t of clock.due(state, performance.now())) {
      t.busy = true;
      running.push(withinShotDeadline(shootThumb((m, p) => cdp.send(m, p ?? {}, t.sessionId)))
        .then((webp) => { thumbs++; bytes += webp.byteLength; }).finally(() => { t.busy = false; }));
    }
    await sleep(THUMB_TICK_MS);
  }
  await Promise.all(running);
  return { thumbs, bytes };
});

/** The alternative: Chromium's screencast at the thumbnail's width, every Nth frame so it runs near the same rate. */
const screencast = (): ReturnType<typeof measure> => measure(async (stop) => {
  let thumbs = 0, bytes = 0;
  const ids = new Set(tabs.map((t) => t.sessionId));
  const onFrame = (f: { data: string; sessionId: number }, sid?: string): void => {
    if (!sid || !ids.has(sid)) return;
    void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }, sid).catch(() => undefined);
    if (stop()) return;
    thumbs++;
    bytes += Buffer.from(f.data, 'base64').byteLength;
  };
  cdp.on('Page.screencastFrame', onFrame);
  const nth = Math.max(1, Math.round((PAGE_HZ * THUMB_PERIOD_MS) / 1000));
  for (const t of tabs) await cdp.send('Page.startScreencast', { format: 'jpeg', quality: SCREENCAST_JPEG_QUALITY, maxWidth: THUMB_WIDTH_PX, maxHeight: THUMB_WIDTH_PX, everyNthFrame: nth }, t.sessionId);
  while (!stop()) await sleep(50);
  for (const t of tabs) await cdp.send('Page.stopScreencast', {}, t.sessionId).catch(() => undefined);
  await sleep(200);
  return { thumbs, bytes };
});

const runs: Record<'alone' | 'thumbs' | 'screencast', Array<Awaited<ReturnType<typeof measure>>>> = { alone: [], thumbs: [], screencast: [] };
let resizes = 0;
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, fn] of [['alone', alone], ['thumbs', shots], ['screencast', screencast]] as const) {
      log(`round ${r + 1}: ${name}…`);
      runs[name].push(await fn());
    }
  }
  for (const t of tabs) {
    const v = await cdp.send<{ result: { value: number } }>('Runtime.evaluate', { expression: 'window.__resizes', returnByValue: true }, t.sessionId);
    resizes += v.result.value;
  }
} finally {
  await cdp.close();
  await host.stop();
  server.close();
  rmSync(profileDir, { recursive: true, force: true });
}

const pct = (m: { cpuMs: number; secs: number }): number => (m.cpuMs / (m.secs * 1000)) * 100;
const aloneMedian = median(runs.alone.map(pct));
const figures = (name: 'thumbs' | 'screencast'): Run => ({
  cpu_pct: round(median(runs[name].map(pct)) - aloneMedian),
  fps_per_tab: round(median(runs[name].map((m) => m.thumbs / m.secs / tabs.length))),
  kb_per_thumb: round(median(runs[name].map((m) => (m.thumbs ? m.bytes / m.thumbs / 1024 : 0)))),
});
const result = {
  page: PAGE, tabs: tabs.length, thumb_width_px: THUMB_WIDTH_PX, period_ms: THUMB_PERIOD_MS, shots_per_s: THUMB_SHOTS_PER_S, goal_cpu_pct: GOAL_CPU_PCT,
  tabs_alone_cpu_pct: round(aloneMedian),
  thumbs: figures('thumbs'), screencast: figures('screencast'),
  /** Resize events the pages saw while shot: a shot must not disturb the page's layout. */
  page_resizes: resizes,
};
if (!json) console.table({ thumbs: result.thumbs, screencast: result.screencast });
saveRun('thumbs', result);
console.log(JSON.stringify(result));
process.exit(result.thumbs.cpu_pct <= GOAL_CPU_PCT ? 0 : 1);
