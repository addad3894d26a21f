/**
 * `./forge bench soak [--minutes N] [--json]`: agents, viewers and terminal floods together on one
 * real `forge serve`, for N minutes. Agents navigate, snapshot, click and evaluate on the local
 * pages; viewers watch the tabs, one holds control and drives the page; an agent floods its
 * terminal with 20 MB at a time while viewers watch it. The server's RSS is sampled every few
 * seconds; errors are counted: a tool result with isError, a failed call, an error message to a
 * viewer, a socket dropped without a reason. The last line of --json:
 * {"minutes", "calls", "errors", "rss_mb_start", "rss_mb_end", "rss_mb_per_hour"}, the slope a
 * least-squares fit over the samples after the first minute (the heap's warm-up) gives. Beside it,
 * the same slope of the main thread's JS heap and of its off-heap buffers (from /metrics), so a
 * growing RSS says whether it is the server's own objects or memory the allocator keeps.
 *
 * `--heap`: the server runs with its inspector open; every minute its heap is collected and
 * weighed (`heap_collected_mb_per_hour`, the slope of what it keeps, its garbage left out), and
 * a third of the way in (at least past the warm-up, so the browser driver's bounded records have
 * mostly filled) and again at the end, with the load still connected, it is counted by
 * constructor (`heap_top`, what grew): a leak shows by name. A collection pauses the main thread
 * (a fraction of a second); a count can pause it for a minute on a loaded machine (the agents'
 * calls wait for it, see CountPause) and its serializing raises the RSS once, so with
 * --heap `rss_mb_per_hour` is fitted over the samples after the first count.
 */
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { decodeServerMessage, encodeControl, FRAME_KIND_TERMINAL } from '../src/shared/protocol.js';
import { readTermHeader } from '../src/shared/terminal.js';
import { agentClient, rssMb, startServer, type ForgeServer } from './fuzz/server.js';
import { servePages } from './fuzz/scene.js';
import { growth, Inspector, inspectorUrl, type HeapCensus } from './fuzz/inspector.js';

const DEFAULT_MINUTES = 3;
/** Agents driving pages at once. */
const AGENTS = 3;
/** Viewers watching the first agent's tab; the first of them holds control and drives it. */
const TAB_VIEWERS = 4;
/** Viewers attached to the flooding terminal. */
const TERM_VIEWERS = 2;
/** One flood's bytes through the terminal. */
const FLOOD_BYTES = 20_000_000;
/** RSS sample period, ms. */
const SAMPLE_MS = 5_000;
/** Samples before this are the heap's warm-up and left out of the slope, ms. */
const WARMUP_MS = 60_000;
/** The controller's gestures a second: a person moving the mouse and scrolling, not a flood. */
const GESTURES_PER_SECOND = 20;
/** Bound on one tool call, ms: a flood of 20 MB takes seconds; past this the call failed. */
const CALL_TIMEOUT_MS = 180_000;
const TERM_SEAT = 'default/soak/term';
/** With --heap, how often the server's heap is collected and weighed, ms. */
const HEAP_SAMPLE_MS = 60_000;
/** With --heap, constructors shown by growth. */
const HEAP_TOP = 12;

const say = (s: string): void => { process.stderr.write(`soak: ${s}\n`); };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

class Tally {
  calls = 0;
  errors = 0;
  private shown = 0;
  error(what: string): void {
    this.errors++;
    if (this.shown++ < 20) say(`error: ${what.slice(0, 300)}`);
  }
}

function textOf(r: unknown): string {
  return ((r as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('\n');
}

async function call(t: Tally, client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  t.calls++;
  try {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    if (r.isError) t.error(`${name}: ${textOf(r)}`);
    return textOf(r);
  } catch (e) {
    t.error(`${name} failed: ${(e as Error).message}`);
    return '';
  }
}

/**
 * With --heap, the agents' calls (the flood's too) wait while the server's heap is counted, and
 * the count waits for the calls under way: the count pauses the server's main thread for up to a
 * minute, and a call that timed out under it would be the count's error, not the server's. The
 * viewers go on.
 */
class CountPause {
  private held?: Promise<void>;
  private release?: () => void;
  private running = 0;
  private idle?: () => void;

  async call<T>(fn: () => Promise<T>): Promise<T> {
    while (this.held) await this.held;
    this.running++;
    try { return await fn(); } finally { if (--this.running === 0) this.idle?.(); }
  }

  /** Runs `fn` once no page call runs, holding new ones until it is done. */
  async during<T>(fn: () => Promise<T>): Promise<T> {
    this.held = new Promise((r) => { this.release = r; });
    if (this.running) await new Promise<void>((r) => { this.idle = r; });
    this.idle = undefined;
    try { return await fn(); } finally { this.held = undefined; this.release?.(); }
  }
}

/** One agent's round: a page, its snapshot, a click on one of its refs, an evaluate. */
async function agentLoop(t: Tally, client: Client, base: string, until: () => boolean, pause: CountPause): Promise<void> {
  const pages = ['simple.html', 'text.html', 'typing.html'];
  const page = (name: string, args: Record<string, unknown>): Promise<string> => pause.call(() => call(t, client, name, args));
  for (let i = 0; !until(); i++) {
    await page('browser_navigate', { url: `${base}/${pages[i % pages.length]}` });
    const snap = await page('browser_snapshot', {});
    const ref = /\[ref=(e\d+)\]/.exec(snap)?.[1];
    if (ref) await page('browser_click', { element: 'an element of the page', ref });
    await page('browser_evaluate', { function: '() => document.title + document.body.innerText.length' });
  }
}

/** A viewer socket that counts what breaks: an error message, a drop without words. It reconnects on a worded close. */
class SoakViewer {
  ws!: WebSocket;
  term = 0;
  stopped = false;

  constructor(private readonly server: ForgeServer, private readonly t: Tally, private readonly onOpen: (v: SoakViewer) => void) {}

  connect(): void {
    const ws = new WebSocket(`ws://127.0.0.1:${this.server.port}/ws?token=${this.server.viewerToken}`);
    this.ws = ws;
    ws.binaryType = 'nodebuffer';
    ws.on('open', () => this.onOpen(this));
    ws.on('error', () => undefined);
    ws.on('message', (data: Buffer) => {
      if (data[0] === FRAME_KIND_TERMINAL) {
        const h = readTermHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
        this.send({ t: 'term_ack', term: h.id, bytes: data.length - h.hdrlen });
        return;
      }
      if (data[0] === 1) return;
      const m = decodeServerMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      if (!m) { this.t.error('a viewer got an undecodable message'); return; }
      if (m.t === 'error') this.t.error(`a viewer was told: ${m.message}`);
      if (m.t === 'term_view') this.term = m.term;
    });
    ws.on('close', (code, reason) => {
      if (this.stopped) return;
      if (code === 1006 || !reason.length) this.t.error(`a viewer socket was dropped without words (code ${code})`);
      setTimeout(() => this.connect(), 500);
    });
  }

  send(m: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(encodeControl(m as never));
  }

  stop(): void { this.stopped = true; this.ws.close(); }
}

function slopePerHour(samples: Array<[number, number]>): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  const num = samples.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = samples.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den ? (num / den) * 3_600_000 : 0;
}

/** The main thread's JS heap and off-heap buffers, MB, as the server's /metrics says them; undefined when it does not answer. */
async function processMemory(server: ForgeServer): Promise<{ heap: number; external: number } | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`, { headers: { authorization: `Bearer ${server.agentToken}` } });
    const text = await res.text();
    const gauge = (name: string): number => Number(new RegExp(`^forge_process_${name} (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 1e6;
    const heap = gauge('heap_used_bytes');
    return Number.isFinite(heap) ? { heap, external: gauge('external_bytes') } : undefined;
  } catch { return undefined; }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { minutes: { type: 'string' }, json: { type: 'boolean' }, heap: { type: 'boolean' } } });
  const minutes = Number(values.minutes ?? DEFAULT_MINUTES);
  const server = await startServer({ shell: 'bash', stopOnSignal: true, inspect: values.heap });
  const inspector = values.heap ? await Inspector.open(inspectorUrl(server)) : undefined;
  const collected: Array<[number, number]> = [];
  let censusStart: HeapCensus | undefined;
  let censusEnd: HeapCensus | undefined;
  /** With --heap, when the first count ended, ms into the run: its serializing raised the RSS once, so the RSS slope is fitted after it. */
  let countedAt = 0;
  const pages = await servePages();
  const t = new Tally();
  const samples: Array<[number, number]> = [];
  const heap: Array<[number, number]> = [];
  const external: Array<[number, number]> = [];
  let rssStart = 0;
  try {
    const agents = await Promise.all(Array.from({ length: AGENTS }, (_, i) => agentClient(server, `default/soak/a${i}`)));
    const termAgent = await agentClient(server, TERM_SEAT);
    // Each agent's first page, so the viewers have a tab to watch from the start.
    await call(t, agents[0]!, 'browser_navigate', { url: `${pages.base}/simple.html` });
    const pageId = /\bp-[0-9a-f]{8}\b/.exec(await call(t, agents[0]!, 'browser_tabs', { action: 'list' }))?.[0];
    await call(t, termAgent, 'terminal__run', { command: 'true' });
    say(`server pid ${server.pid}; ${AGENTS} agents, ${TAB_VIEWERS} tab viewers on ${pageId}, ${TERM_VIEWERS} terminal viewers, for ${minutes} min`);
    const t0 = Date.now();
    const end = t0 + minutes * 60_000;
    const over = (): boolean => Date.now() >= end;
    rssStart = rssMb(server.pid);
    const sampler = setInterval(() => {
      const at = Date.now() - t0;
      samples.push([at, rssMb(server.pid)]);
      void processMemory(server).then((m) => { if (m) { heap.push([at, m.heap]); external.push([at, m.external]); } });
    }, SAMPLE_MS);
    const viewers = Array.from({ length: TAB_VIEWERS }, (_, i) => new SoakViewer(server, t, (v) => {
      v.send({ t: 'tabs' });
      v.send({ t: 'attach', pageId, w: 1000 + i * 40, h: 700 });
      if (i === 0) v.send({ t: 'control', take: true });
    }));
    const termViewers = Array.from({ length: TERM_VIEWERS }, () => new SoakViewer(server, t, (v) => v.send({ t: 'term_attach', seat: TERM_SEAT, cols: 120, rows: 40 })));
    for (const v of [...viewers, ...termViewers]) v.connect();
    const drive = (async () => {
      for (let i = 0; !over(); i++) {
        const x = 100 + (i * 37) % 800;
        const y = 100 + (i * 53) % 500;
        viewers[0]!.send(i % 10 === 9 ? { t: 'input', ev: { type: 'wheel', x, y, dx: 0, dy: i % 20 < 10 ? 40 : -40 } } : { t: 'input', ev: { type: 'mouse', action: 'move', x, y, button: 'none' } });
        if (i % 50 === 0) for (const v of viewers) v.send({ t: 'ping', id: i });
        await sleep(1000 / GESTURES_PER_SECOND);
      }
    })();
    const pause = new CountPause();
    const flood = (async () => {
      while (!over()) {
        const out = await pause.call(() => call(t, termAgent, 'terminal__run', { command: `yes | head -c ${FLOOD_BYTES} ; echo flood-done`, timeout_ms: CALL_TIMEOUT_MS - 10_000 }));
        if (out && !out.includes('flood-done')) t.error(`a flood ended without its mark: ${out.slice(-200)}`);
      }
    })();
    const weigh = inspector && (async () => {
      await sleep(Math.max(WARMUP_MS, (end - t0) / 3));
      censusStart = await pause.during(() => inspector.snapshot());
      countedAt = Date.now() - t0;
      say(`heap a third of the way in, counted: ${(censusStart.total / 1e6).toFixed(1)} MB`);
      while (!over()) {
        collected.push([Date.now() - t0, await inspector.collectedHeapMb()]);
        await sleep(Math.min(HEAP_SAMPLE_MS, Math.max(0, end - Date.now())));
      }
    })();
    const progress = setInterval(() => say(`${((Date.now() - t0) / 60_000).toFixed(1)} min: ${t.calls} calls, ${t.errors} errors, rss ${rssMb(server.pid).toFixed(0)} MB, heap ${(heap.at(-1)?.[1] ?? 0).toFixed(0)} MB, external ${(external.at(-1)?.[1] ?? 0).toFixed(0)} MB`), 30_000);
    await Promise.all([...agents.map((a) => agentLoop(t, a, pages.base, over, pause)), drive, flood, weigh]);
    clearInterval(progress);
    clearInterval(sampler);
    if (inspector) {
      collected.push([Date.now() - t0, await inspector.collectedHeapMb()]);
      censusEnd = await inspector.snapshot();
      say(`heap at the end, counted: ${(censusEnd.total / 1e6).toFixed(1)} MB`);
      inspector.close();
    }
    for (const v of [...viewers, ...termViewers]) v.stop();
    await Promise.all([...agents, termAgent].map((a) => a.close().catch(() => undefined)));
  } finally {
    const rssEnd = rssMb(server.pid);
    if (server.exited()) t.error(`the server process ended (${server.exited()})`);
    pages.server.closeAllConnections();
    pages.server.close();
    await server.stop();
    const warm = (xs: Array<[number, number]>): Array<[number, number]> => xs.filter(([ms]) => ms >= WARMUP_MS);
    const line = {
      minutes, calls: t.calls, errors: t.errors, rss_mb_start: Math.round(rssStart), rss_mb_end: Math.round(rssEnd), rss_mb_per_hour: Math.round(slopePerHour(warm(samples).filter(([ms]) => ms >= countedAt))),
      heap_mb_end: Math.round(heap.at(-1)?.[1] ?? 0), heap_mb_per_hour: Math.round(slopePerHour(warm(heap))), external_mb_per_hour: Math.round(slopePerHour(warm(external))),
      ...(values.heap ? {
        heap_collected_mb: collected.map(([, mb]) => Math.round(mb * 10) / 10), heap_collected_mb_per_hour: Math.round(slopePerHour(collected)),
        heap_top: censusStart && censusEnd ? growth(censusStart, censusEnd, HEAP_TOP) : [],
      } : {}),
    };
    if (values.json) console.log(JSON.stringify(line));
    else {
      const { heap_collected_mb: _weighed, heap_top: top, ...figures } = line as typeof line & { heap_collected_mb?: number[]; heap_top?: unknown[] };
      console.table([figures]);
      if (top?.length) console.table(top);
    }
    if (t.errors) process.exitCode = 1;
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
