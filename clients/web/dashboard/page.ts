/**
 * The operators' dashboard, `/dashboard?token=<the agents' key>`: the running server's figures
 * from /metrics, scraped every second and plotted over the last minutes with uPlot — frames a
 * second per profile with the relay's sends and skips, encode cost per frame, memory (the server
 * and each host), CPU and bytes out; and per watched tab its fps, encode ms and KB per frame,
 * viewers and skips, per watched terminal its MB/s and viewers. Readable on a phone: the charts stack and fit the width.
 */
import uPlot from 'uplot';
import { applyTheme, PALETTES, paletteFor } from '../theme.js';
import { figures, parseMetrics, type Figures, type Scrape } from './metrics.js';

/** Between scrapes, ms: the gauges behind /metrics are refreshed as often. */
export const DASHBOARD_PERIOD_MS = 1000;
/** Points a chart keeps: five minutes at a point a second. */
export const DASHBOARD_WINDOW_POINTS = 300;
/** A chart's height, CSS px: four fit a laptop screen, and a phone scrolls them. */
const CHART_HEIGHT_PX = 180;

interface SeriesDef { label: string; value: (f: Figures) => number }
interface ChartDef { id: string; title: string; unit: string; series: (profiles: string[], f: Figures) => SeriesDef[] }

/** One series per watched tab (or terminal) of the latest figures, by its label. */
const perItem = <T extends { label: string }>(items: (f: Figures) => T[], f: Figures, suffix: string, pick: (t: T) => number): SeriesDef[] =>
  items(f).map(({ label }) => ({ label: `${label} ${suffix}`.trim(), value: (g) => { const t = items(g).find((x) => x.label === label); return t ? pick(t) : 0; } }));
const tabsOf = (f: Figures): Figures['tabs'] => f.tabs;
const termsOf = (f: Figures): Figures['terminalList'] => f.terminalList;

const perProfile = (profiles: string[], label: string, pick: (p: Figures['profiles'][number]) => number): SeriesDef[] =>
  profiles.map((name) => ({ label: `${name} ${label}`, value: (f) => { const p = f.profiles.find((x) => x.profile === name); return p ? pick(p) : 0; } }));

const CHARTS: ChartDef[] = [
  { id: 'frames', title: 'Frames', unit: 'per s', series: (ps) => [...perProfile(ps, 'encoded', (p) => p.fps), { label: 'sent to viewers', value: (f) => f.framesSentPerS }, { label: 'skipped (slow viewers)', value: (f) => f.framesSkippedPerS }] },
  { id: 'encode', title: 'Encode per frame', unit: 'ms · KB', series: (ps) => [...perProfile(ps, 'ms', (p) => p.encodeMsPerFrame), ...perProfile(ps, 'KB', (p) => p.kbPerFrame)] },
  { id: 'memory', title: 'Memory', unit: 'MB', series: (ps) => [{ label: 'server RSS', value: (f) => f.serverRssMb }, { label: 'server heap', value: (f) => f.serverHeapMb }, ...perProfile(ps, 'host RSS', (p) => p.hostRssMb)] },
  { id: 'load', title: 'CPU and bytes out', unit: '% · MB/s', series: (ps) => [...perProfile(ps, 'host CPU %', (p) => p.hostCpuPct), { label: 'relay MB/s', value: (f) => f.relayMbPerS }, { label: 'terminals MB/s', value: (f) => f.terminalMbPerS }] },
  { id: 'tab-fps', title: 'Frames per watched tab', unit: 'per s', series: (_, f) => [...perItem(tabsOf, f, 'fps', (t) => t.fps), ...perItem(tabsOf, f, 'skipped (slow viewers)', (t) => t.skippedPerS)] },
  { id: 'tab-frame', title: 'Encode per frame, per watched tab', unit: 'ms · KB', series: (_, f) => [...perItem(tabsOf, f, 'ms', (t) => t.encodeMsPerFrame), ...perItem(tabsOf, f, 'KB', (t) => t.kbPerFrame)] },
  { id: 'viewers', title: 'Viewers per tab and terminal', unit: 'viewers', series: (_, f) => [...perItem(tabsOf, f, '', (t) => t.viewers), ...perItem(termsOf, f, '', (t) => t.viewers)] },
  { id: 'terminals', title: 'Bytes out per terminal', unit: 'MB/s', series: (_, f) => perItem(termsOf, f, 'MB/s', (t) => t.mbPerS) },
];

const COLOURS = ['accent', 'ok', 'refuse', 'warn', 'term-magenta', 'term-cyan', 'term-blue', 'term-yellow'];

class Chart {
  readonly el: HTMLElement;
  private plot?: uPlot;
  private key = '';
  private data: number[][] = [[]];
  private defs: SeriesDef[] = [];

  constructor(private readonly def: ChartDef) {
    this.el = document.createElement('section');
    this.el.className = 'chart';
    this.el.dataset.chart = def.id;
    this.el.dataset.points = '0';
    const h = document.createElement('h2');
    h.textContent = `${def.title} (${def.unit})`;
    this.el.append(h);
  }

  push(f: Figures): void {
    const profiles = f.profiles.map((p) => p.profile).sort();
    const key = this.def.series(profiles, f).map((s) => s.label).join('\n');
    if (key !== this.key || !this.plot) this.rebuild(profiles, key, f);
    this.data[0]!.push(f.at / 1000);
    this.defs.forEach((s, i) => { this.data[i + 1]!.push(s.value(f)); });
    if (this.data[0]!.length > DASHBOARD_WINDOW_POINTS) for (const col of this.data) col.shift();
    this.plot!.setData(this.data as uPlot.AlignedData);
    this.el.dataset.points = String(this.data[0]!.length);
    this.el.dataset.last = JSON.stringify(Object.fromEntries(this.defs.map((s, i) => [s.label, round(this.data[i + 1]!.at(-1) ?? 0)])));
  }

  resize(): void { this.plot?.setSize({ width: this.width(), height: CHART_HEIGHT_PX }); }

  private width(): number { return Math.max(240, this.el.clientWidth || document.body.clientWidth - 24); }

  private rebuild(profiles: string[], key: string, f: Figures): void {
    this.key = key;
    const old = new Map(this.defs.map((s, i) => [s.label, this.data[i + 1]!]));
    this.defs = this.def.series(profiles, f);
    // A series that stays keeps its history; a new one starts at zero beside it.
    const n = this.data[0]!.length;
    this.data = [this.data[0]!, ...this.defs.map((s) => old.get(s.label) ?? new Array<number>(n).fill(0))];
    this.plot?.destroy();
    const pal = PALETTES[paletteFor('system')];
    this.plot = new uPlot({
      width: this.width(), height: CHART_HEIGHT_PX,
      series: [{}, ...this.defs.map((s, i) => ({ label: s.label, stroke: pal[COLOURS[i % COLOURS.length]!] ?? pal.fg, width: 1.5 }))],
      axes: [{ stroke: pal.muted, grid: { stroke: pal.line } }, { stroke: pal.muted, grid: { stroke: pal.line } }],
      legend: { live: false },
    }, this.data as uPlot.AlignedData, this.el);
  }
}

const round = (n: number): number => Math.round(n * 100) / 100;

function start(): void {
  applyTheme();
  const app = document.getElementById('app')!;
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const status = document.createElement('p');
  status.className = 'dash-status';
  status.setAttribute('role', 'status');
  const charts = CHARTS.map((d) => new Chart(d));
  app.append(status, ...charts.map((c) => c.el));
  addEventListener('resize', () => { for (const c of charts) c.resize(); });
  let prev: Scrape | undefined;
  const scrape = async (): Promise<void> => {
    let res: Response;
    try {
      res = await fetch('/metrics', { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
    } catch {
      status.textContent = 'The server does not answer; trying again every second.';
      status.dataset.state = 'down';
      return;
    }
    if (res.status === 401) {
      status.textContent = 'This dashboard needs the agents\' key: open /dashboard?token=<the token in server.json>.';
      status.dataset.state = 'refused';
      return;
    }
    const now = parseMetrics(await res.text(), Date.now());
    if (prev) {
      const f = figures(prev, now);
      for (const c of charts) c.push(f);
      status.textContent = `${f.viewers} viewer${f.viewers === 1 ? '' : 's'} · ${f.profiles.length} host${f.profiles.length === 1 ? '' : 's'} · ${f.terminals} terminal${f.terminals === 1 ? '' : 's'} · server ${Math.round(f.serverRssMb)} MB`;
      status.dataset.state = 'live';
    }
    prev = now;
  };
  void scrape();
  setInterval(() => void scrape(), DASHBOARD_PERIOD_MS);
}

start();
