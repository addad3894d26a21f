/**
 * `./forge bench mcp [--json] [--iterations N] [--warmup N] [--pw-settle MS]`
 *
 * Per-call latency of every core tool forge and Playwright MCP both offer, through each of them,
 * in one run, on the same local app page, timed at the MCP client (the agent's view: request sent
 * to answer read): browser_navigate, browser_snapshot, browser_click, browser_evaluate,
 * browser_take_screenshot, browser_wait_for, browser_fill_form, browser_type,
 * browser_select_option, browser_hover, browser_drag, browser_drop, browser_press_key,
 * browser_find, browser_console_messages, browser_network_requests, browser_network_request,
 * browser_handle_dialog, browser_file_upload, browser_resize, browser_navigate_back and
 * browser_tabs (list). Left out: the calls that wait for a person (browser_hand_off) or end
 * things (browser_close, browser_end_host). Each call is checked to have done its job on that
 * server (bench/mcp/round.ts); the calls that open what another needs first (the page to go back
 * from, the dialog, the file chooser) are not timed. The figures are kept in bench/results/.
 *
 * Not tinybench: the two servers must take turns call by call, so machine noise hits both
 * alike, and each round is an agent's real sequence (navigate, snapshot, click the ref that
 * server's own snapshot gave, evaluate, and on through the page), which a loop of one task cannot
 * express. Each round flips which server goes first. The first rounds warm both up and are not
 * counted.
 *
 * Time to a known result: an answer that does not show what its call did (Playwright MCP's key
 * press, typing and form filling answer without the page) is followed by the snapshot an agent
 * reads to see it, timed, and `to_result` gives, for those calls, each server's p50 of the call
 * and that read together (forge's answers carry what changed, so its figure is the call alone).
 *
 * Playwright MCP waits its settle time (--timeout-settle, 500 ms by default) after a click or an
 * evaluate; the bench keeps its defaults, as its users get them. `--pw-settle MS` sets it, to
 * compare the calls' own work.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { saveRun } from './harness.js';
import { serveApp } from './mcp/app-page.js';
import { startForge, startPlaywrightMcp, type Contender } from './mcp/contenders.js';
import { KINDS, Round, type Kind } from './mcp/round.js';

/** Counted rounds by default: 40 samples per call kind and server gives a steady p95. */
const ITERATIONS_DEFAULT = 40;
/** Uncounted rounds first: host start, JIT, the page's first load. */
const WARMUP_DEFAULT = 5;
/** The seat the bench drives forge as. */
const SEAT = 'default/bench/lead';
/** The file browser_file_upload attaches, written where both servers may read it (Playwright MCP reads only its workspace). */
const UPLOAD_NAME = 'notes.txt';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function count(name: string, dflt: number): number {
  const v = flag(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} takes a whole number, not ${JSON.stringify(v)}`);
  return n;
}

/** Linear-interpolated percentile of sorted samples. */
function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const x = (sorted.length - 1) * p;
  const lo = Math.floor(x);
  const hi = Math.ceil(x);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (x - lo);
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const iterations = count('--iterations', ITERATIONS_DEFAULT);
  const warmup = count('--warmup', WARMUP_DEFAULT);
  const pwSettle = flag('--pw-settle') === undefined ? undefined : count('--pw-settle', 0);
  if (iterations < 1) throw new Error('--iterations must be at least 1');

  const started: Array<{ stop: () => Promise<void> }> = [];
  const stopAll = async (): Promise<void> => { await Promise.allSettled(started.splice(0).map((s) => s.stop())); };
  const onSignal = (): void => { void stopAll().finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const app = await serveApp();
    started.push({ stop: app.close });
    const forge = await startForge(ROOT, SEAT);
    started.push(forge);
    const pw = await startPlaywrightMcp(pwSettle);
    started.push(pw);
    process.stderr.write(`bench mcp: forge vs Playwright MCP ${pw.version}${pwSettle === undefined ? '' : ` (--timeout-settle ${pwSettle})`}, ${warmup} warm-up + ${iterations} rounds\n`);

    const loadBefore = loadavg()[0];
    const upload = join(pw.dir, UPLOAD_NAME);
    writeFileSync(upload, 'Deliver before noon.\n');
    const rounds = [new Round(forge, app, upload), new Round(pw, app, upload)];
    const samples: Record<Contender['name'], Record<Kind, number[]>> = {
      forge: Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, number[]>,
      playwright_mcp: Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, number[]>,
    };
    // Each round's time to a known result, by kind, where both servers have one (see Round.toResult).
    const toResult: Partial<Record<Kind, Array<Record<Contender['name'], number>>>> = {};
    /** The kinds some answer of which did not show what its call did. */
    const readAfter = new Set<Kind>();
    for (let i = 0; i < warmup + iterations; i++) {
      const order = i % 2 === 0 ? rounds : [...rounds].reverse();
      for (const kind of KINDS) {
        const known: Partial<Record<Contender['name'], number>> = {};
        for (const r of order) {
          const ms = await r.step(kind);
          if (i >= warmup) samples[r.c.name][kind].push(ms);
          if (r.toResult !== undefined) known[r.c.name] = r.toResult;
          if (r.toResult !== undefined && r.toResult !== ms) readAfter.add(kind);
        }
        if (i >= warmup && known.forge !== undefined && known.playwright_mcp !== undefined) {
          toResult[kind] = [...(toResult[kind] ?? []), known as Record<Contender['name'], number>];
        }
      }
    }

    const stats = (name: Contender['name']): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const p of [0.5, 0.95]) {
        for (const kind of KINDS) out[`${kind}_ms_p${p * 100}`] = round2(percentile([...samples[name][kind]].sort((a, b) => a - b), p));
      }
      return out;
    };
    const f = stats('forge');
    const w = stats('playwright_mcp');
    const ratio: Record<string, number> = {};
    for (const k of Object.keys(f)) ratio[k] = round2(f[k] / w[k]);
    // Median of each round's own forge/Playwright MCP ratio: both calls of a round met the same load.
    const paired: Record<string, number> = {};
    for (const kind of KINDS) {
      const own = samples.forge[kind].map((ms, i) => ms / samples.playwright_mcp[kind][i]).sort((a, b) => a - b);
      paired[`${kind}_ms_p50`] = round2(percentile(own, 0.5));
    }

    console.table(Object.fromEntries(KINDS.map((kind) => [kind, {
      'forge p50 ms': f[`${kind}_ms_p50`], 'pw-mcp p50 ms': w[`${kind}_ms_p50`], 'ratio p50': ratio[`${kind}_ms_p50`],
      'forge p95 ms': f[`${kind}_ms_p95`], 'pw-mcp p95 ms': w[`${kind}_ms_p95`], 'ratio p95': ratio[`${kind}_ms_p95`],
      'paired ratio p50': paired[`${kind}_ms_p50`],
    }])));
    // The calls whose answer, on one server or both, did not show what they did: with the read that does.
    const toResultP50: Record<string, { forge_ms_p50: number; playwright_mcp_ms_p50: number; ratio: number }> = {};
    for (const kind of readAfter) {
      const rows = toResult[kind] ?? [];
      if (!rows.length) continue;
      const p50 = (name: Contender['name']): number => round2(percentile(rows.map((x) => x[name]).sort((a, b) => a - b), 0.5));
      toResultP50[kind] = { forge_ms_p50: p50('forge'), playwright_mcp_ms_p50: p50('playwright_mcp'), ratio: round2(p50('forge') / p50('playwright_mcp')) };
    }
    if (Object.keys(toResultP50).length) {
      process.stderr.write('To a known result (the call, and the snapshot an agent reads when its answer does not show what the call did):\n');
      console.table(toResultP50);
    }
    const figures = {
      forge: f, playwright_mcp: w, ratio, ratio_paired: paired, to_result: toResultP50, iterations, warmup,
      playwright_mcp_version: pw.version, playwright_mcp_settle_ms: pwSettle ?? 'default',
      // The machine's 1-minute load average around the run: latencies scale with it, ratios less.
      load_avg_1m: [round2(loadBefore), round2(loadavg()[0])],
    };
    saveRun('mcp', figures);
    if (json) console.log(JSON.stringify(figures));
  } finally {
    await stopAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench mcp failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
