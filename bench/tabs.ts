/**
 * `./forge bench tabs [--json] [--tabs N] [--seats N]`: the host's memory as agents open many tabs,
 * with the default hidden-tab caps and with caps lifted, and the rebuild of an unloaded tab beside
 * a fresh navigate; then the default caps once more without the spare window ([browser]
 * spare_window = false), so what the spare saves a rebuild and an open is read side by side. Memory is read twice at each point: SETTLE_MS after the last open (while
 * closed tabs' processes are still going and the browser's own processes still hold what the opens
 * churned) and once it has settled (the lowest reading, taken when it has stopped falling).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ServerInfo } from '../src/main/state.js';
import { descendants } from './mcp/processes.js';
import { spawnForge, type ForgeProcess } from './forge-process.js';

/** Tabs opened in each run by default: 3 seats × 20, ten times the default agent cap. */
const TABS_DEFAULT = 60;
const SEATS_DEFAULT = 3;
/** Caps past any tab count the bench opens: the uncapped run unloads nothing. */
const UNCAPPED = 100_000;
/** Settle time after the last open before memory is read first, ms: unloads and renderer exits land. */
const SETTLE_MS = 3_000;
/** Between memory readings while it settles, ms. */
const SETTLING_SAMPLE_MS = 2_000;
/** Memory has settled once no reading has been lower for this long, ms: a renderer's idle GC and the browser's trims come within it. */
const SETTLED_QUIET_MS = 10_000;
/** Longest wait for memory to settle, ms: past it the lowest reading so far stands. */
const SETTLED_MAX_MS = 60_000;
/** Tabs open when memory is read first, to see it stay flat (capped) as the rest open: the 20 of 60. */
const EARLY_TABS = 20;
/** Revive and fresh-navigate samples in the capped run. */
const SAMPLES = 15;
/** Bound on one call, ms. */
const CALL_TIMEOUT_MS = 60_000;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A page with some weight: a table of 400 rows and 4 MB of script heap, like a real app's tab. */
function pageHtml(n: number): string {
  const rows = Array.from({ length: 400 }, (_, i) => `<tr><td>${n}-${i}</td><td>item ${i}</td><td><button>Open ${i}</button></td></tr>`).join('');
  return `<!doctype html><title>Tab ${n}</title><h1>Tab ${n}</h1><input id="note"><table>${rows}</table>`
    + `<script>window.heap = Array.from({ length: 1 << 19 }, (_, i) => i * ${n});</script>`;
}

function servePages(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const m = /^\/p\/(\d+)/.exec(req.url ?? '');
    res.writeHead(m ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(m ? pageHtml(Number(m[1])) : 'not found');
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server })));
}

function startForge(toml: string): Promise<ForgeProcess> {
  return spawnForge({ root: ROOT, toml, stateDirPrefix: 'forge-bench-tabs-', outputMaxChars: 20_000 });
}

type Call = (tool: string, args?: Record<string, unknown>) => Promise<{ text: string; ms: number }>;

async function seat(info: ServerInfo, key: string): Promise<{ call: Call; close: () => Promise<void> }> {
  const url = new URL(info.mcp_url);
  url.searchParams.set('seat', key);
  const client = new Client({ name: 'forge-bench', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${info.token}` } } }));
  const call: Call = async (tool, args = {}) => {
    const t0 = performance.now();
    const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    const ms = performance.now() - t0;
    const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
    if (r.isError) throw new Error(`${tool} failed: ${text.split('\n')[0]}`);
    return { text, ms };
  };
  return { call, close: () => client.close() };
}

/** The PSS of the server's Chromium processes by kind of process (`--type=`: renderer, gpu-process, utility…, an extension's renderer apart; the browser itself has none), MiB, and how many of each kind run (`<kind>_count`): each shared page counted once, split among its sharers. */
function hostPssByKind(serverPid: number): Record<string, number> {
  const kb: Record<string, number> = {};
  for (const p of descendants(serverPid)) {
    if (!p.cmd.includes('chromium')) continue;
    const type = /--type=(\S+)/.exec(p.cmd)?.[1] ?? 'browser';
    const kind = type === 'renderer' && p.cmd.includes('--extension-process') ? 'extension' : type;
    kb[`${kind}_count`] = (kb[`${kind}_count`] ?? 0) + 1024;
    try { kb[kind] = (kb[kind] ?? 0) + Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${p.pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0); } catch { /* gone */ }
  }
  return Object.fromEntries(Object.entries(kb).map(([k, v]) => [k, Math.round(v / 1024)]));
}

/**
 * The host's memory SETTLE_MS after the last open (`first`) and once settled (`settled`: the lowest
 * total, read every SETTLING_SAMPLE_MS until none was lower for SETTLED_QUIET_MS, SETTLED_MAX_MS at most).
 */
async function settledPss(serverPid: number): Promise<{ first: Record<string, number>; settled: Record<string, number> }> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const first = hostPssByKind(serverPid);
  let settled = first;
  let lowestAt = performance.now();
  const started = lowestAt;
  while (performance.now() - lowestAt < SETTLED_QUIET_MS && performance.now() - started < SETTLED_MAX_MS) {
    await new Promise((r) => setTimeout(r, SETTLING_SAMPLE_MS));
    const now = hostPssByKind(serverPid);
    if (mib(now) < mib(settled)) { settled = now; lowestAt = performance.now(); }
  }
  return { first, settled };
}

/** The total MiB of a by-kind reading (its counts left out). */
function mib(kinds: Record<string, number>): number {
  return Object.entries(kinds).filter(([k]) => !k.endsWith('_count')).reduce((a, [, v]) => a + v, 0);
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const x = (sorted.length - 1) * p;
  return sorted[Math.floor(x)] + (sorted[Math.ceil(x)] - sorted[Math.floor(x)]) * (x - Math.floor(x));
}

function flagNumber(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return dflt;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} takes a whole number of at least 1`);
  return n;
}

interface Run { pss_mib: number; pss_mib_early: number; pss_mib_3s: number; pss_mib_early_3s: number; pss_mib_by_kind: Record<string, number>; pss_mib_by_kind_early: Record<string, number>; loaded_tabs: number; unloaded_tabs: number; open_ms_p50: number; revive_ms_p50?: number; revive_ms_p95?: number; navigate_ms_p50?: number }

async function run(origin: string, toml: string, tabs: number, seats: number, measureRevive: boolean): Promise<Run> {
  const forge = await startForge(toml);
  const agents = await Promise.all(Array.from({ length: seats }, (_, i) => seat(forge.info, `default/bench/seat${i + 1}`)));
  try {
    const opens: number[] = [];
    const per = Math.ceil(tabs / seats);
    const early = Math.min(per, Math.ceil(EARLY_TABS / seats));
    // Seats open their tabs side by side, as agents working at once do: the first EARLY_TABS, memory read, then the rest.
    const open = (from: number, to: number) => Promise.all(agents.map(async (a, s) => {
      for (let i = from; i < to; i++) {
        const url = `${origin}/p/${s * per + i + 1}`;
        if (i === 0) await a.call('browser_navigate', { url });
        else opens.push((await a.call('browser_tabs', { action: 'new', url })).ms);
      }
    }));
    await open(0, early);
    const readEarly = await settledPss(forge.proc.pid!);
    const kindsEarly = readEarly.settled;
    const pssEarly = mib(kindsEarly);
    await open(early, per);
    const read = await settledPss(forge.proc.pid!);
    const kinds = read.settled;
    const pss = mib(kinds);
    const list = (await agents[0].call('browser_tabs', { action: 'list' })).text;
    // The list has every tab of the profile: the seat's own in full, the others' by owner, each marked when unloaded.
    const unloaded = list.split('\n').filter((l) => /^- \d+:/.test(l) && l.includes('· unloaded')).length;
    const out: Run = { pss_mib: pss, pss_mib_early: pssEarly, pss_mib_3s: mib(read.first), pss_mib_early_3s: mib(readEarly.first), pss_mib_by_kind: kinds, pss_mib_by_kind_early: kindsEarly, loaded_tabs: tabs - unloaded, unloaded_tabs: unloaded, open_ms_p50: Math.round(percentile(opens.sort((x, y) => x - y), 0.5)) };
    if (measureRevive) {
      const a = agents[0];
      const revives: number[] = [];
      const navigates: number[] = [];
      let fresh = tabs + 1;
      for (let k = 0; k < SAMPLES; k++) {
        const rows = (await a.call('browser_tabs', { action: 'list' })).text.split('\n');
        const gone = rows.find((l) => l.includes(' · page p-') && l.includes('· unloaded'));
        if (!gone) break;
        await a.call('browser_tabs', { action: 'select', index: Number(/^- (\d+):/.exec(gone)![1]) });
        const r = await a.call('browser_snapshot');
        if (!r.text.includes('unloaded to save memory')) throw new Error('a call on an unloaded tab did not rebuild it');
        revives.push(r.ms);
        navigates.push((await a.call('browser_navigate', { url: `${origin}/p/${fresh++}` })).ms);
      }
      revives.sort((x, y) => x - y);
      out.revive_ms_p50 = Math.round(percentile(revives, 0.5));
      out.revive_ms_p95 = Math.round(percentile(revives, 0.95));
      out.navigate_ms_p50 = Math.round(percentile(navigates.sort((x, y) => x - y), 0.5));
    }
    return out;
  } finally {
    await Promise.allSettled(agents.map((a) => a.close()));
    await forge.stop();
  }
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const tabs = flagNumber('--tabs', TABS_DEFAULT);
  const seats = flagNumber('--seats', SEATS_DEFAULT);
  const pages = await servePages();
  try {
    const capped = await run(pages.origin, '', tabs, seats, true);
    const uncapped = await run(pages.origin, `[browser]\nhidden_agent_tabs = ${UNCAPPED}\nhidden_person_tabs = ${UNCAPPED}\n`, tabs, seats, false);
    // The default caps again without the spare window, side by side: what the spare saves a rebuild and an open, and costs in memory.
    const noSpare = await run(pages.origin, '[browser]\nspare_window = false\n', tabs, seats, true);
    console.table({ capped, uncapped, capped_without_spare_window: noSpare });
    // The last line: the issue's names first (the host's memory is its processes' PSS, each shared page counted once), then each run whole.
    if (json) {
      console.log(JSON.stringify({
        rss_mb_capped: capped.pss_mib, rss_mb_capped_early: capped.pss_mib_early, early_tabs: EARLY_TABS, rss_mb_uncapped: uncapped.pss_mib,
        rss_mb_capped_3s: capped.pss_mib_3s, rss_mb_capped_early_3s: capped.pss_mib_early_3s,
        live_tabs_capped: capped.loaded_tabs, revive_ms_p50: capped.revive_ms_p50, revive_ms_p95: capped.revive_ms_p95, navigate_ms_p50: capped.navigate_ms_p50,
        revive_ms_p50_without_spare_window: noSpare.revive_ms_p50, navigate_ms_p50_without_spare_window: noSpare.navigate_ms_p50,
        open_ms_p50: capped.open_ms_p50, open_ms_p50_without_spare_window: noSpare.open_ms_p50, rss_mb_capped_without_spare_window: noSpare.pss_mib,
        tabs, seats, capped, uncapped, capped_without_spare_window: noSpare, pss_ratio: Math.round((capped.pss_mib / uncapped.pss_mib) * 100) / 100,
      }));
    }
  } finally {
    pages.server.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench tabs failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
