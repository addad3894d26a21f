/**
 * The server's own V8 inspector, for the benches that ask what its heap keeps: a server started
 * with `inspect` opens it on a free loopback port and says where on its stderr.
 */
import WebSocket from 'ws';
import type { ForgeServer } from './server.js';

/** Bound on one inspector answer, ms: a snapshot of a 70 MB heap took 63 s on a loaded two-core machine (seconds on a quiet one). */
const INSPECTOR_TIMEOUT_MS = 600_000;

export interface HeapCensus {
  /** Every node's self size, bytes. */
  total: number;
  by: Map<string, { count: number; bytes: number }>;
}

/** The inspector's WebSocket address the server printed, or a sentence why there is none. */
export function inspectorUrl(server: ForgeServer): string {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(server.output())?.[1];
  if (!url) throw new Error(`the server did not open its inspector:\n${server.output().slice(-2000)}`);
  return url;
}

/** The server's inspector, over its WebSocket: commands answered in order, snapshot chunks gathered. */
export class Inspector {
  private nextId = 1;
  private waiting = new Map<number, (r: { error?: { message: string }; result?: unknown }) => void>();
  private chunks: string[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { id?: number; method?: string; params?: { chunk?: string }; error?: { message: string }; result?: unknown };
      if (m.method === 'HeapProfiler.addHeapSnapshotChunk') this.chunks.push(m.params!.chunk!);
      else if (m.id !== undefined) { this.waiting.get(m.id)?.(m); this.waiting.delete(m.id); }
    });
  }

  static async open(url: string): Promise<Inspector> {
    const ws = new WebSocket(url, { maxPayload: 1 << 30 });
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    return new Inspector(ws);
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the server's inspector did not answer ${method} within ${INSPECTOR_TIMEOUT_MS / 1000} s`)), INSPECTOR_TIMEOUT_MS);
      this.waiting.set(id, (r) => { clearTimeout(t); if (r.error) reject(new Error(`${method}: ${r.error.message}`)); else resolve(r.result as T); });
    });
  }

  /** The main thread's heap after a full collection, MB: what it keeps, its garbage left out. */
  async collectedHeapMb(): Promise<number> {
    await this.send('HeapProfiler.collectGarbage');
    const { usedSize } = await this.send<{ usedSize: number }>('Runtime.getHeapUsage');
    return usedSize / 1e6;
  }

  /** A heap snapshot after full collections: self size and count by constructor (other nodes by their type). */
  async snapshot(): Promise<HeapCensus> {
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

/** What grew from one census to the next, by constructor, the largest `top` first. */
export function growth(before: HeapCensus, after: HeapCensus, top: number): Array<{ name: string; count: number; bytes: number }> {
  return [...after.by].map(([name, a]) => {
    const b = before.by.get(name) ?? { count: 0, bytes: 0 };
    return { name: name.slice(0, 80), count: a.count - b.count, bytes: a.bytes - b.bytes };
  }).sort((x, y) => y.bytes - x.bytes).slice(0, top);
}
