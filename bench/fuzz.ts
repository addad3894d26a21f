/**
 * `./forge bench fuzz [--inputs N] [--seed S] [--target viewer|terminal|mcp|mcp-json] [--only I | --from I] [--json]`:
 * seeded random and mutated inputs into a real `forge serve` — the viewer socket's decoder and
 * handlers, a held terminal's input path, and the MCP endpoint (`mcp-json`, not run by default:
 * the MCP endpoint's inputs without the tool calls shaped from a schema, which wait for pages, so
 * its JSON-RPC door can take 10^6 in an hour) — checking that the server never
 * ends, keeps answering (a viewer's ping and an agent's tools/list after every batch), words every
 * refusal, keeps its replies bounded and its memory within RSS_GROWTH_MAX_MB.
 *
 * Input i of a run is drawn from (seed, i) alone: `--only I` replays that one input, `--from I`
 * runs N inputs from I on (a fault that needs the inputs before it). A failure
 * prints its target, seed, input index and what it was; the exit code is 1 when any was found.
 */
import { parseArgs } from 'node:util';
import { freshSeed } from './fuzz/prng.js';
import { RSS_GROWTH_MAX_MB, type TargetResult } from './fuzz/result.js';
import { makeScene, MCP_SEAT, SCENE_SEAT } from './fuzz/scene.js';
import { startServer } from './fuzz/server.js';
import { fuzzViewer } from './fuzz/viewer-target.js';
import { fuzzTerminal } from './fuzz/terminal-target.js';
import { fuzzMcp } from './fuzz/mcp-target.js';

/** Inputs per target by default: enough to reach rare shapes (a huge nesting comes once in ~4000). */
const DEFAULT_INPUTS = 1_000_000;
const TARGETS = ['viewer', 'terminal', 'mcp', 'mcp-json'] as const;
/** The targets a run without --target fuzzes. */
const DEFAULT_TARGETS = ['viewer', 'terminal', 'mcp'] as const;

const say = (s: string): void => { process.stderr.write(`fuzz: ${s}\n`); };

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { inputs: { type: 'string' }, seed: { type: 'string' }, target: { type: 'string', multiple: true }, only: { type: 'string' }, from: { type: 'string' }, json: { type: 'boolean' } } });
  const seed = values.seed !== undefined ? Number(values.seed) >>> 0 : freshSeed();
  const inputs = Number(values.inputs ?? DEFAULT_INPUTS);
  const targets = (values.target?.length ? values.target : [...DEFAULT_TARGETS]) as Array<(typeof TARGETS)[number]>;
  for (const t of targets) if (!TARGETS.includes(t)) throw new Error(`no fuzz target named ${t} (targets: ${TARGETS.join(', ')})`);
  say(`seed ${seed}, ${inputs} inputs per target: ${targets.join(', ')}${values.only ? `, input ${values.only} only` : ''}`);
  const server = await startServer({ shell: 'echo', stopOnSignal: true });
  const results: TargetResult[] = [];
  try {
    const scene = await makeScene(server, { browser: targets.some((t) => t !== 'terminal') });
    say(`server pid ${server.pid} on port ${server.port}; the scene's tab is ${scene.viewer.pageId ?? 'none'}`);
    // --only I: input I drawn alone, as it was drawn in the full run.
    const first = values.only !== undefined ? Number(values.only) : Number(values.from ?? 0);
    const count = values.only !== undefined ? 1 : inputs;
    for (const t of targets) {
      const base = { server, prober: scene.prober, seed, inputs: count, first };
      const r = t === 'viewer' ? await fuzzViewer({ ...base, scene: scene.viewer })
        : t === 'terminal' ? await fuzzTerminal({ ...base, seat: SCENE_SEAT })
          : await fuzzMcp({ ...base, seat: MCP_SEAT, scene: { pagesBase: scene.pagesBase, pageId: scene.viewer.pageId }, envelopes: t === 'mcp-json' });
      results.push(r);
      say(`${t}: ${r.inputs} inputs, ${r.refusals} refusals, ${r.closes} worded closes, ${r.crashes} crashes, ${r.faultCount} faults; rss ${r.rss_mb_before.toFixed(0)} → ${r.rss_mb_after.toFixed(0)} MB`);
      if (r.crashes) break;
    }
    await scene.close();
  } finally {
    // Errors the server logged while it took the inputs are faults too, even when it went on.
    const logged = server.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
    if (logged.length) {
      say(`the server logged ${logged.length} error${logged.length === 1 ? '' : 's'}; the first:\n${logged.slice(0, 5).join('\n').slice(0, 20_000)}`);
      process.exitCode = 1;
    }
    const gone = server.exited();
    if (gone) say(`the server ended (${gone}); the end of its output:\n${server.output().slice(-20_000)}`);
    await server.stop().catch((e: Error) => say(`could not remove the server's temp dir: ${e.message}`));
  }
  const grown = results.filter((r) => r.rss_mb_after - r.rss_mb_before > RSS_GROWTH_MAX_MB);
  for (const r of grown) say(`${r.target}: RSS grew ${(r.rss_mb_after - r.rss_mb_before).toFixed(0)} MB, past the ${RSS_GROWTH_MAX_MB} MB bound`);
  const summary = {
    seed,
    rss_growth_max_mb: RSS_GROWTH_MAX_MB,
    targets: Object.fromEntries(results.map((r) => [r.target, {
      inputs: r.inputs, refusals: r.refusals, closes: r.closes, crashes: r.crashes, faults: r.faultCount,
      rss_mb_before: Math.round(r.rss_mb_before), rss_mb_after: Math.round(r.rss_mb_after),
      top_refusals: r.top_refusals,
      first_faults: r.faults.slice(0, 5).map((f) => ({ index: f.index, from: f.from, label: f.label, what: f.what })),
    }])),
  };
  if (values.json) console.log(JSON.stringify(summary));
  else console.table(results.map((r) => ({ target: r.target, inputs: r.inputs, refusals: r.refusals, closes: r.closes, crashes: r.crashes, faults: r.faultCount, rss_mb_before: Math.round(r.rss_mb_before), rss_mb_after: Math.round(r.rss_mb_after) })));
  if (results.some((r) => r.crashes || r.faultCount) || grown.length) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exit(1); });
