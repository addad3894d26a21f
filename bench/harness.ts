/**
 * What the frame benches share: the test pages over HTTP, the relay worker, the load generator
 * process, and CPU accounting from /proc (host processes by process group, this process whole).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import type { FromRelay, RelayWorkerData, ToRelay } from '../src/workers/relay/protocol.js';
import { linkKeyPair, publishedKey } from '../src/workers/relay/link-keys.js';
import type { FanoutCounters } from '../src/workers/relay/fanout.js';

export const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
/** The test pages; FORGE_PAGES overrides (the default is the shared folder beside the checkout). */
export const PAGES_DIR = process.env.FORGE_PAGES ?? join(root, 'bench', 'pages');
export const TOKEN = 'bench-token';
const CLK_TCK = 100;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function servePages(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    try { res.end(readFileSync(join(PAGES_DIR, (req.url ?? '/').replace(/\?.*$/, '')))); } catch { res.statusCode = 404; res.end(); }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/** CPU ms (user+system) of every process in the given process groups. */
export function groupCpuMs(pgids: number[]): number {
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pgids.includes(Number(f[2]))) ticks += Number(f[11]) + Number(f[12]);
    } catch { /* gone */ }
  }
  return (ticks * 1000) / CLK_TCK;
}

export function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export class Relay {
  readonly worker: Worker;
  port = 0;
  readonly opened: number[] = [];
  private constructor(w: Worker) { this.worker = w; }

  static async start(): Promise<Relay> {
    const w = new Worker(join(root, 'dist/src/workers/relay/worker.js'), {
      workerData: { host: '127.0.0.1', port: 0, agentKey: 'fa_bench-agent-key', viewerToken: TOKEN, tokens: [], linkKey: publishedKey(linkKeyPair().publicKey), profilesRoot: join(root, 'dist/bench-no-profiles'), org: 'bench', webDir: join(root, 'dist/web'), mcpPort: 1 } satisfies RelayWorkerData,
    });
    const r = new Relay(w);
    r.port = await new Promise<number>((resolve) => {
      w.on('message', (m: FromRelay) => {
        if (m.t === 'listening') resolve(m.port);
        else if (m.t === 'open') r.opened.push(m.viewer);
      });
    });
    return r;
  }

  post(m: ToRelay, transfer?: Parameters<Worker['postMessage']>[1]): void { this.worker.postMessage(m, transfer); }

  stats(): Promise<{ counters: FanoutCounters; cpuMs: number }> {
    return new Promise((resolve) => {
      const on = (m: FromRelay): void => {
        if (m.t === 'fanout_stats') { this.worker.off('message', on); resolve({ counters: m.counters, cpuMs: m.cpuMs }); }
      };
      this.worker.on('message', on);
      this.post({ t: 'fanout_stats' });
    });
  }

  async stop(): Promise<void> {
    this.post({ t: 'stop' });
    await sleep(100);
    await this.worker.terminate();
  }
}

export interface ViewerResult { slow: boolean; frames: number; fps: number; kb_per_frame: number; keyframes: number; latency_ms_p50: number; latency_ms_p95: number }

/** The load generator: connects, waits for go(), then reports. */
export class LoadGen {
  private readonly child: ChildProcess;
  private readonly lines: AsyncIterator<string>;
  private constructor(child: ChildProcess) {
    this.child = child;
    this.lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  }

  static async start(url: string, viewers: number, slow: number, seconds: number, latency: 'stamp' | 'trailer'): Promise<LoadGen> {
    const child = spawn(process.execPath, [join(root, 'dist/bench/loadgen.js'), '--url', url, '--viewers', String(viewers), '--slow', String(slow), '--seconds', String(seconds), '--latency', latency], { stdio: ['pipe', 'pipe', 'inherit'] });
    const g = new LoadGen(child);
    await g.next('connected');
    return g;
  }

  pid(): number { return this.child.pid ?? 0; }

  go(): void { this.child.stdin!.write('go\n'); }

  async result(): Promise<{ elapsed: number; viewers: ViewerResult[] }> {
    return (await this.next('done')) as unknown as { elapsed: number; viewers: ViewerResult[] };
  }

  private async next(t: string): Promise<Record<string, unknown>> {
    for (;;) {
      const r = await this.lines.next();
      if (r.done) throw new Error('the load generator exited early');
      try {
        const m = JSON.parse(r.value) as Record<string, unknown>;
        if (m.t === t) return m;
      } catch { /* not ours */ }
    }
  }
}

/** Keeps a run's figures as bench/results/<bench>-<time>.json for `./forge bench report`. */
export function saveRun(bench: string, figures: unknown): void {
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  let commit = '';
  try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(); } catch { /* not a checkout */ }
  const at = new Date().toISOString();
  writeFileSync(join(dir, `${bench}-${at.replace(/[:.]/g, '-')}.json`), JSON.stringify({ bench, at, commit, figures }, null, 1) + '\n');
}
