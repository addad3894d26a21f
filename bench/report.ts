/**
 * `./forge bench report`: reads the kept runs (bench/results/*.json) and writes bench/report.html,
 * forge beside what a user would pick instead, figure by figure: forge / CDP screencast, forge /
 * a plain `ws` relay, forge / a bare PTY pipe, forge / Playwright MCP, each plotted as a ratio
 * over the runs (uPlot, inlined so the page stands alone) with its goal drawn as a line. A ratio
 * on the good side of its goal is the goal met, whichever way the figure moved since the last run.
 * Prints one JSON line: each comparison's newest ratio and whether it meets its goal.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './harness.js';
import { KINDS as MCP_KINDS } from './mcp/round.js';

interface Kept { bench: string; at: string; figures: unknown }

/** One figure of forge against a peer's: `forge` and `peer` are dotted keys into a run's figures, per series. */
interface Comparison {
  peer: 'screencast' | 'ws relay' | 'bare pipe' | 'Playwright MCP';
  figure: string;
  bench: string;
  series: Record<string, { forge: string; peer: string }>;
  /** 'lower': forge under the goal line is good (cost, latency); 'higher': over it (throughput). */
  better: 'lower' | 'higher';
  goal: number;
  why: string;
}

const pages = (figure: string, which = ['simple', 'anim', 'typing']): Comparison['series'] => Object.fromEntries(which.map((p) => [p, { forge: `pages.${p}.${figure}`, peer: `pages.${p}.screencast.${figure}` }]));
const mcpCalls = (suffix: string): Comparison['series'] => Object.fromEntries(MCP_KINDS.map((c) => [c, { forge: `forge.${c}_ms_${suffix}`, peer: `playwright_mcp.${c}_ms_${suffix}` }]));

/** The comparisons and their goals. */
export const COMPARISONS: Comparison[] = [
  { peer: 'screencast', figure: 'CPU ms per frame, a still page', bench: 'frames', series: pages('cpu_ms_per_frame', ['simple']), better: 'lower', goal: 0.15, why: 'the issue\'s goal for a page that changes little: the capture was chosen for a fraction of any CDP capture\'s CPU per frame' },
  { peer: 'screencast', figure: 'CPU ms per frame, moving pages', bench: 'frames', series: pages('cpu_ms_per_frame', ['anim', 'typing']), better: 'lower', goal: 0.35, why: 'the issue\'s goal for a page in full motion' },
  { peer: 'screencast', figure: 'paint-to-socket latency p50', bench: 'frames', series: pages('latency_ms_p50'), better: 'lower', goal: 1, why: 'a person never sees the page later than a screencast would show it' },
  { peer: 'screencast', figure: 'fps delivered', bench: 'frames', series: { anim: { forge: 'pages.anim.fps', peer: 'pages.anim.screencast.fps' }, simple: { forge: 'pages.simple.fps', peer: 'pages.simple.screencast.fps' } }, better: 'higher', goal: 1, why: 'at least the screencast\'s motion' },
  { peer: 'screencast', figure: 'click-to-picture p50', bench: 'input', series: { click: { forge: 'click_ms_p50', peer: 'screencast.click_ms_p50' }, key: { forge: 'key_ms_p50', peer: 'screencast.key_ms_p50' } }, better: 'lower', goal: 0.85, why: 'the issue\'s goal: a press answers sooner than CDP input watched by screencast, on a quiet and a loaded machine' },
  { peer: 'ws relay', figure: 'relay CPU per viewer-frame', bench: 'fanout', series: { 'whole run': { forge: 'relay_cpu_ms_per_viewer_frame', peer: 'ws_relay_cpu_ms_per_viewer_frame' } }, better: 'lower', goal: 1, why: 'forge\'s relay costs no more than a plain ws relay of the same frames' },
  { peer: 'ws relay', figure: 'relay CPU per viewer-frame (ratio runs)', bench: 'fanout-ratio', series: { workload: { forge: 'relay_cpu_ms_per_viewer_frame', peer: 'ws_relay_cpu_ms_per_viewer_frame' } }, better: 'lower', goal: 1, why: 'the same, over several alternating rounds' },
  { peer: 'bare pipe', figure: 'terminal MB/s', bench: 'terminal', series: { '1 viewer': { forge: 'mb_per_s_1_viewer', peer: 'bare_pipe_mb_per_s' }, '10 viewers': { forge: 'mb_per_s_10_viewers', peer: 'bare_pipe_mb_per_s' } }, better: 'higher', goal: 0.8, why: 'the issue\'s goal: a flood under 10 viewers keeps 0.8 of a raw PTY pipe\'s speed, with a screen model kept' },
  { peer: 'Playwright MCP', figure: 'characters an agent reads', bench: 'tokens', series: { '15-step flow': { forge: 'forge.chars', peer: 'playwright_mcp.chars' } }, better: 'lower', goal: 0.5, why: 'the issue\'s goal: half the tokens or fewer' },
  { peer: 'Playwright MCP', figure: 'call latency p50', bench: 'mcp', series: mcpCalls('p50'), better: 'lower', goal: 1.2, why: 'the issue\'s goal: every core tool within 1.2x of Playwright MCP\'s p50 on the same Chromium' },
];

/** Flattens nested figures to dotted keys: pages.simple.fps → 58.2. */
function flatten(o: unknown, prefix = '', out: Record<string, number> = {}): Record<string, number> {
  if (typeof o === 'number') out[prefix] = o;
  else if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** A kept file as a run: the benches' own shape, or a hand-kept summary naming its command and date (the mcp bench's). */
function asRun(o: Record<string, unknown>): Kept | undefined {
  if (typeof o.at === 'string' && typeof o.bench === 'string') return o as unknown as Kept;
  const bench = typeof o.command === 'string' ? /bench (\w[\w-]*)/.exec(o.command)?.[1] : undefined;
  if (bench && typeof o.date === 'string') return { bench, at: new Date(o.date).toISOString(), figures: o };
  return undefined;
}

const dir = join(root, 'bench', 'results');
const runs: Kept[] = (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [])
  .map((f) => asRun(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>))
  .filter((r): r is Kept => !!r).sort((a, b) => a.at.localeCompare(b.at));

const round = (n: number): number => Math.round(n * 1000) / 1000;
const charts = COMPARISONS.map((c) => {
  const mine = runs.filter((r) => r.bench === c.bench).map((r) => ({ x: Date.parse(r.at) / 1000, f: flatten(r.figures) }));
  const ratio = (f: Record<string, number>, s: { forge: string; peer: string }): number | null => {
    const a = f[s.forge], b = f[s.peer];
    return a !== undefined && b !== undefined && b > 0 ? round(a / b) : null;
  };
  const series = Object.entries(c.series).map(([name, s]) => ({ name, y: mine.map((r) => ratio(r.f, s)) }));
  const latest = Object.fromEntries(series.map((s) => [s.name, [...s.y].reverse().find((v) => v !== null) ?? null]));
  const meets = Object.values(latest).every((v) => v === null || (c.better === 'lower' ? v <= c.goal : v >= c.goal));
  return { ...c, x: mine.map((r) => r.x), series, latest, meets, runs: mine.length };
}).filter((c) => c.runs > 0);

const uplotJs = readFileSync(join(root, 'node_modules/uplot/dist/uPlot.iife.min.js'), 'utf8');
const uplotCss = readFileSync(join(root, 'node_modules/uplot/dist/uPlot.min.css'), 'utf8');
const html = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>forge beside its peers</title>
<style>${uplotCss} body{font:14px sans-serif;margin:20px;background:#fafafa} h2{font-size:15px;margin:24px 0 4px} .c{display:inline-block;vertical-align:top;margin:8px;background:#fff;padding:8px;border:1px solid #ddd;max-width:460px} .c p{margin:2px 0;color:#555} .met{color:#064} .missed{color:#940}</style>
<h1>forge beside its peers</h1>
<p>${runs.length} kept runs (bench/results). Each chart is forge's figure over the peer's, run by run; the dashed line is the goal.</p>
<div id="charts"></div>
<script>${uplotJs}</script>
<script>
const charts = ${JSON.stringify(charts)};
const colours = ['#0a5', '#05a', '#a50', '#a05'];
let peer = '';
for (const c of charts) {
  if (c.peer !== peer) { peer = c.peer; const h = document.createElement('h2'); h.textContent = 'forge / ' + peer; document.getElementById('charts').appendChild(h); }
  const el = document.createElement('div'); el.className = 'c'; document.getElementById('charts').appendChild(el);
  const words = Object.entries(c.latest).map(([k, v]) => k + ' ' + (v === null ? '–' : v + '×')).join(', ');
  const p = document.createElement('p');
  p.className = c.meets ? 'met' : 'missed';
  p.textContent = (c.meets ? 'goal met' : 'goal not met') + ' (' + c.better + ' is better, goal ' + c.goal + '×): ' + words;
  const why = document.createElement('p'); why.textContent = c.why;
  const series = [{}, ...c.series.map((s, i) => ({ label: s.name, stroke: colours[i % colours.length], width: 2, points: { show: true }, spanGaps: true })), { label: 'goal', stroke: '#999', dash: [6, 4], width: 1.5 }];
  const data = [c.x, ...c.series.map((s) => s.y), c.x.map(() => c.goal)];
  new uPlot({ title: 'forge / ' + c.peer + ': ' + c.figure, width: 440, height: 220, series, scales: { y: { range: (u, lo, hi) => [0, Math.max(hi, c.goal) * 1.15] } } }, data, el);
  el.append(p, why);
}
</script>`;
writeFileSync(join(root, 'bench', 'report.html'), html);
console.log(JSON.stringify({ runs: runs.length, report: 'bench/report.html', comparisons: charts.map((c) => ({ peer: c.peer, figure: c.figure, goal: c.goal, better: c.better, latest: c.latest, meets: c.meets })) }));
