/**
 * `./forge bench mcp [--json] [--iterations N] [--warmup N] [--pw-settle MS]`
 *
 * Per-call latency of browser_navigate, browser_snapshot, browser_click, browser_evaluate,
 * browser_take_screenshot, browser_wait_for and browser_fill_form
 * through forge and through Playwright MCP, in one run, on the same local app page, timed at
 * the MCP client (the agent's view: request sent to answer read).
 *
 * Not tinybench: the two servers must take turns call by call, so machine noise hits both
 * alike, and each round is an agent's real sequence (navigate, snapshot, click the ref that
 * server's own snapshot gave, evaluate), which a loop of one task cannot express. Each round
 * flips which server goes first. The first rounds warm both up and are not counted.
 *
 * Playwright MCP waits its settle time (--timeout-settle, 500 ms by default) after a click or an
 * evaluate; the bench keeps its defaults, as its users get them. `--pw-settle MS` sets it, to
 * compare the calls' own work.
 */
import { loadavg } from 'node:os';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp, CLICK_ROW, type AppServer } from './mcp/app-page.js';
import { startForge, startPlaywrightMcp, type Contender } from './mcp/contenders.js';

/** Counted rounds by default: 40 samples per call kind and server gives a steady p95. */
const ITERATIONS_DEFAULT = 40;
/** Uncounted rounds first: host start, JIT, the page's first load. */
const WARMUP_DEFAULT = 5;
/** The seat the bench drives forge as. */
const SEAT = 'default/bench/lead';

const KINDS = ['navigate', 'snapshot', 'click', 'evaluate', 'screenshot', 'wait_for', 'fill_form'] as const;
type Kind = typeof KINDS[number];

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

const CLICK_NAME = `Select order ${1000 + CLICK_ROW}`;
const EVALUATE_FN = "() => document.querySelectorAll('tr[aria-selected=true]').length";

/** One agent round on one server: refs come from that server's own snapshot. */
class Round {
  private ref = '';
  private fields: Record<string, string> = {};
  constructor(readonly c: Contender, private readonly app: AppServer) {}

  async step(kind: Kind): Promise<number> {
    switch (kind) {
      case 'navigate': {
        const r = await this.c.call('browser_navigate', { url: this.app.url });
        if (!r.text.includes('Orders')) throw new Error(`${this.c.name}: the navigate answer does not show the page:\n${r.text.slice(0, 400)}`);
        return r.ms;
      }
      case 'snapshot': {
        const r = await this.c.call('browser_snapshot', {});
        const m = new RegExp(`button "${CLICK_NAME}" \\[ref=([^\\]]+)\\]`).exec(r.text);
        if (!m) throw new Error(`${this.c.name}: no ref for "${CLICK_NAME}" in its snapshot:\n${r.text.slice(0, 600)}`);
        this.ref = m[1];
        for (const [role, name] of [['textbox', 'Customer'], ['checkbox', 'Urgent']]) {
          const f = new RegExp(`${role} "${name}"[^\\n]*\\[ref=([^\\]]+)\\]`).exec(r.text);
          if (!f) throw new Error(`${this.c.name}: no ref for ${role} "${name}" in its snapshot`);
          this.fields[name] = f[1];
        }
        return r.ms;
      }
      case 'click': {
        const r = await this.c.call('browser_click', { element: CLICK_NAME, [this.c.refArg]: this.ref });
        return r.ms;
      }
      case 'evaluate': {
        const r = await this.c.call('browser_evaluate', { function: EVALUATE_FN });
        // The page was loaded fresh this round and clicked once: exactly one row is selected.
        if (!/\n1\n|\n1$/.test(r.text)) throw new Error(`${this.c.name}: the click did not select the row:\n${r.text.slice(0, 400)}`);
        return r.ms;
      }
      case 'screenshot': {
        const r = await this.c.call('browser_take_screenshot', { type: 'png' });
        return r.ms;
      }
      case 'wait_for': {
        const r = await this.c.call('browser_wait_for', { text: 'New order' });
        return r.ms;
      }
      case 'fill_form': {
        const r = await this.c.call('browser_fill_form', { fields: [
          { name: 'Customer', type: 'textbox', [this.c.refArg]: this.fields.Customer, value: 'Ada Lovelace' },
          { name: 'Urgent', type: 'checkbox', [this.c.refArg]: this.fields.Urgent, value: 'true' },
        ] });
        return r.ms;
      }
    }
  }
}

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
    const rounds = [new Round(forge, app), new Round(pw, app)];
    const samples: Record<Contender['name'], Record<Kind, number[]>> = {
      forge: Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, number[]>,
      playwright_mcp: Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, number[]>,
    };
    for (let i = 0; i < warmup + iterations; i++) {
      const order = i % 2 === 0 ? rounds : [...rounds].reverse();
      for (const kind of KINDS) {
        for (const r of order) {
          const ms = await r.step(kind);
          if (i >= warmup) samples[r.c.name][kind].push(ms);
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
    if (json) {
      console.log(JSON.stringify({
        forge: f, playwright_mcp: w, ratio, ratio_paired: paired, iterations, warmup,
        playwright_mcp_version: pw.version, playwright_mcp_settle_ms: pwSettle ?? 'default',
        // The machine's 1-minute load average around the run: latencies scale with it, ratios less.
        load_avg_1m: [round2(loadBefore), round2(loadavg()[0])],
      }));
    }
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
