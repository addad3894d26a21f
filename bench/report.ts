/**
 * `./forge bench report`: reads the kept runs (bench/results/*.json), writes bench/report.html
 * with each figure plotted over the runs (uPlot, inlined so the page stands alone), and checks
 * the newest run of each bench against the committed baseline (bench/baseline.json) with a
 * tolerance band, like xterm.js's benchmark baseline. Prints one JSON line: the figures out of band.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './harness.js';

/**
 * Tolerance band as a ratio to the baseline: [0.75, 1.5] — noisy 2-core machines swing ±25%,
 * and past 1.5x (or under 0.75x) a figure has really moved.
 */
export const TOLERANCE_BAND: [number, number] = [0.75, 1.5];

interface Kept { bench: string; at: string; commit: string; figures: unknown }

/** Flattens nested figures to dotted keys: pages.simple.fps → 58.2. */
function flatten(o: unknown, prefix = '', out: Record<string, number> = {}): Record<string, number> {
  if (typeof o === 'number') out[prefix] = o;
  else if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

const dir = join(root, 'bench', 'results');
const runs: Kept[] = existsSync(dir)
  ? readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Kept)
    // A kept file of another shape (a bench's own summary) is not a run.
    .filter((r) => typeof r.at === 'string' && typeof r.bench === 'string').sort((a, b) => a.at.localeCompare(b.at))
  : [];
const baselinePath = join(root, 'bench', 'baseline.json');
const baseline = existsSync(baselinePath) ? (JSON.parse(readFileSync(baselinePath, 'utf8')) as Record<string, unknown>) : {};

const outOfBand: Array<{ bench: string; figure: string; value: number; baseline: number; ratio: number }> = [];
const charts: Array<{ bench: string; figure: string; x: number[]; y: Array<number | null>; base: number | null }> = [];
for (const bench of [...new Set(runs.map((r) => r.bench))]) {
  const mine = runs.filter((r) => r.bench === bench);
  const flat = mine.map((r) => flatten(r.figures));
  const base = flatten(baseline[bench] ?? {});
  const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))].sort();
  for (const k of keys) {
    const y = flat.map((f) => (Number.isFinite(f[k]) ? f[k]! : null));
    charts.push({ bench, figure: k, x: mine.map((r) => Date.parse(r.at) / 1000), y, base: base[k] ?? null });
    const last = flat[flat.length - 1]![k];
    const b = base[k];
    if (last !== undefined && b !== undefined && b !== 0 && Number.isFinite(last)) {
      const ratio = last / b;
      if (ratio < TOLERANCE_BAND[0] || ratio > TOLERANCE_BAND[1]) outOfBand.push({ bench, figure: k, value: last, baseline: b, ratio: Math.round(ratio * 100) / 100 });
    }
  }
}

const uplotJs = readFileSync(join(root, 'node_modules/uplot/dist/uPlot.iife.min.js'), 'utf8');
const uplotCss = readFileSync(join(root, 'node_modules/uplot/dist/uPlot.min.css'), 'utf8');
const esc = (s: string): string => s.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);
const html = `<!doctype html><meta charset="utf-8"><title>forge benchmarks</title>
<style>${uplotCss} body{font:14px sans-serif;margin:20px;background:#fafafa} .c{display:inline-block;margin:8px;background:#fff;padding:6px;border:1px solid #ddd} .bad{color:#b00}</style>
<h1>forge benchmarks</h1>
<p>${runs.length} kept runs. Baseline: bench/baseline.json, band ${TOLERANCE_BAND[0]}–${TOLERANCE_BAND[1]}× (dashed lines).</p>
${outOfBand.length ? `<h2 class="bad">Out of band in the newest run</h2><ul>${outOfBand.map((o) => `<li class="bad">${esc(o.bench)} ${esc(o.figure)}: ${o.value} vs baseline ${o.baseline} (${o.ratio}×)</li>`).join('')}</ul>` : '<p>Newest runs are within the band.</p>'}
<div id="charts"></div>
<script>${uplotJs}</script>
<script>
const charts = ${JSON.stringify(charts)};
const band = ${JSON.stringify(TOLERANCE_BAND)};
for (const c of charts) {
  const el = document.createElement('div'); el.className = 'c'; document.getElementById('charts').appendChild(el);
  const series = [{}, { label: c.figure, stroke: '#0a5', width: 2, points: { show: true } }];
  const data = [c.x, c.y];
  if (c.base !== null) {
    for (const [i, m] of band.entries()) { series.push({ label: i ? 'band high' : 'band low', stroke: '#999', dash: [4, 4] }); data.push(c.x.map(() => c.base * m)); }
  }
  new uPlot({ title: c.bench + ': ' + c.figure, width: 420, height: 220, series }, data, el);
}
</script>`;
writeFileSync(join(root, 'bench', 'report.html'), html);
console.log(JSON.stringify({ runs: runs.length, report: 'bench/report.html', out_of_band: outOfBand }));
