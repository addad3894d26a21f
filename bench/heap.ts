/**
 * `./forge bench heap [--warmup N] [--navigations N] [--json]`: what the server's own heap keeps
 * per navigation. One agent drives a real `forge serve` through the repository's bench pages
 * (a snapshot every third page); after `--warmup` navigations and again `--navigations` later,
 * the server's heap is collected and snapshotted through its inspector, and the two snapshots are
 * compared by constructor. A server that keeps something per navigation shows it here by name,
 * with its count (one per navigation is a leak's signature).
 *
 * The warm-up matters: the browser driver keeps each finished request's records up to its bound
 * (PLAYWRIGHT_RECORDS_PER_KIND_MAX), so a run that ends below that bound measures the bound
 * filling, not a leak. The default warm-up passes it.
 *
 * Last line of --json: {"warmup", "navigations", "heap_mb_before", "heap_mb_after",
 * "bytes_per_navigation", "top": [{"name", "count", "bytes"}]}.
 */
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { agentClient, startServer } from './fuzz/server.js';
import { servePages } from './fuzz/scene.js';
import { PLAYWRIGHT_RECORDS_PER_KIND_MAX } from '../src/main/browser/playwright-records.js';

/** Navigations before the first snapshot: past the driver's bound on its records, and JIT warm. */
const WARMUP_DEFAULT = PLAYWRIGHT_RECORDS_PER_KIND_MAX + 100;
/** Navigations between the snapshots: enough that one object kept per navigation stands out. */
const NAVIGATIONS_DEFAULT = 600;
/** Constructors shown, by growth. */
const TOP = 15;
/** Bound on one inspector answer, ms: a snapshot of a 70 MB heap took 63 s on a loaded two-core machine (seconds on a quiet one). */
const INSPECTOR_TIMEOUT_MS = 600_000;
const SEAT = 'default/heap/lead';

const say = (s: string): void => { process.stderr.write(`heap: ${s}\n`); };

/** The server's inspector, over its WebSocket: commands answered in order, snapshot chunks gathered. */
class Inspector {
  private nextId = 1;
  private waiting = new Map<number, (r: { error?: { message: string } }) => void>();
  private chunks: string[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { id?: number; method?: string; params?: { chunk?: string }; error?: { message: string } };
      if (m.method === 'HeapProfiler.addHeapSnapshotChunk') this.chunks.push(m.params!.chunk!);
      else if (m.id !== undefined) { this.waiting.get(m.id)?.(m); this.waiting.delete(m.id); }
    });
  }

  static async open(url: string): Promise<Inspector> {
    const ws = new WebSocket(url, { maxPayload: 1 << 30 });
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    return new Inspector(ws);
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<void> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the server's inspector did not answer ${method} within ${INSPECTOR_TIMEOUT_MS / 1000} s`)), INSPECTOR_TIMEOUT_MS);
      this.waiting.set(id, (r) => { clearTimeout(t); if (r.error) reject(new Error(`${method}: ${r.error.message}`)); else resolve(); });
    });
  }

  /** A heap snapshot after full collections: self size and count by constructor (other nodes by their type). */
  async snapshot(): Promise<{ total: number; by: Map<string, { count: number; bytes: number }> }> {
    await this.send('HeapProfiler.enable');
    for (let i = 0; i < 3; i++) await this.send('HeapProfiler.collectGarbage');
    this.chunks = [];
    await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    const s = JSON.parse(this.chunks.join('')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
    this.chunks = [];
    const fields = s.snapshot.meta.node_fields;
    const [ti, ni, si] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
    const types = s.snapshot.meta.node_types[0];
    const by = new Map<string, { count: number; bytes: number }>();
    let total = 0;
    for (let i = 0; i < s.nodes.length; i += fields.length) {
      const type = types[s.nodes[i + ti]!]!;
      const name = type === 'object' || type === 'closure' ? s.strings[s.nodes[i + ni]!]! || '(anonymous)' : `(${type})`;
      const e = by.get(name) ?? { count: 0, bytes: 0 };
      e.count++;
      e.bytes += s.nodes[i + si]!;
      by.set(name, e);
      total += s.nodes[i + si]!;
    }
    return { total, by };
  }

  close(): void { this.ws.close(); }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { warmup: { type: 'string' }, navigations: { type: 'string' }, json: { type: 'boolean' } } });
  const warmup = Number(values.warmup ?? WARMUP_DEFAULT);
  const navigations = Number(values.navigations ?? NAVIGATIONS_DEFAULT);
  if (!Number.isInteger(warmup) || warmup < 0 || !Number.isInteger(navigations) || navigations < 1) throw new Error('--warmup and --navigations take whole numbers (navigations at least 1)');
  // The server opens its inspector on a free loopback port and says where on its stderr.
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim();
  const server = await startServer({ shell: 'echo', stopOnSignal: true });
  delete process.env.NODE_OPTIONS;
  const pages = await servePages();
  try {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(server.output())?.[1];
    if (!url) throw new Error(`the server did not open its inspector:\n${server.output().slice(-2000)}`);
    const names = readdirSync('bench/pages').filter((f) => f.endsWith('.html'));
    const agent = await agentClient(server, SEAT);
    let errors = 0;
    const navigate = async (i: number): Promise<void> => {
      const r = await agent.callTool({ name: 'browser_navigate', arguments: { url: `${pages.base}/${names[i % names.length]}` } });
      if (r.isError) errors++;
      if (i % 3 === 0) await agent.callTool({ name: 'browser_snapshot', arguments: {} });
    };
    say(`server pid ${server.pid}; ${warmup} navigations to warm up, then ${navigations} between the snapshots`);
    for (let i = 0; i < warmup; i++) await navigate(i);
    const inspector = await Inspector.open(url);
    const before = await inspector.snapshot();
    say(`heap after the warm-up: ${(before.total / 1e6).toFixed(1)} MB`);
    for (let i = warmup; i < warmup + navigations; i++) await navigate(i);
    const after = await inspector.snapshot();
    say(`heap after ${navigations} more: ${(after.total / 1e6).toFixed(1)} MB; ${errors} navigations failed`);
    inspector.close();
    await agent.close();
    const top = [...after.by].map(([name, a]) => {
      const b = before.by.get(name) ?? { count: 0, bytes: 0 };
      return { name: name.slice(0, 80), count: a.count - b.count, bytes: a.bytes - b.bytes };
    }).sort((x, y) => y.bytes - x.bytes).slice(0, TOP);
    const perNav = Math.round((after.total - before.total) / navigations);
    if (values.json) {
      console.log(JSON.stringify({ warmup, navigations, errors, heap_mb_before: Math.round(before.total / 1e5) / 10, heap_mb_after: Math.round(after.total / 1e5) / 10, bytes_per_navigation: perNav, top }));
    } else {
      console.table(top);
      console.log(`heap growth: ${perNav} bytes per navigation over ${navigations}`);
    }
    if (errors) process.exitCode = 1;
  } finally {
    pages.server.close();
    await server.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench heap failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
