/**
 * The main thread's side of the pty worker: requests with answers, events by kind, and one
 * reason for every pending request when the worker goes away.
 */
import { Worker } from 'node:worker_threads';
type Transferable = import('node:worker_threads').TransferListItem;
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { ForgeError } from '../../shared/errors.js';
import { log } from '../logging.js';
import { threadHeaps } from '../../workers/thread-heaps.js';
import type { FromPty, ToPty } from '../../workers/pty/protocol.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The pty worker's young generation, MB: a flood allocates a buffer per read and per frame, all
 * short-lived; V8 would otherwise grow the nursery to its default ceiling and keep it, which shows
 * as tens of MB of server memory that a flood never gives back. Collections stay cheap at this size.
 */
export const PTY_WORKER_YOUNG_GENERATION_MB = 4;

/**
 * How long the pty worker has to end every shell at stop, ms: past its own hang-up and kill graces
 * (SHELL_HANGUP_GRACE_MS + SHELL_KILL_GRACE_MS), inside the server's SHUTDOWN_TIMEOUT_MS.
 */
export const PTY_STOP_DEADLINE_MS = 2500;

type Request = Extract<ToPty, { req: number }>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class PtyLink {
  private readonly worker: Worker;
  private nextReq = 1;
  private pending = new Map<number, Pending>();
  private stopped = false;

  constructor(private readonly onEvent: (m: Exclude<FromPty, { t: 'answer' }>) => void) {
    const heap = threadHeaps.claim('pty');
    this.worker = new Worker(join(here, '..', '..', 'workers', 'pty', 'worker.js'), {
      workerData: { heap },
      resourceLimits: { maxYoungGenerationSizeMb: PTY_WORKER_YOUNG_GENERATION_MB },
    });
    this.worker.on('message', (m: FromPty) => {
      if (m.t === 'answer') {
        const p = this.pending.get(m.req);
        if (!p) return;
        this.pending.delete(m.req);
        if (m.ok) p.resolve(m.value); else p.reject(new ForgeError('terminal', m.message));
        return;
      }
      this.onEvent(m);
    });
    this.worker.on('error', (e) => {
      log.error({ err: e }, 'the pty worker failed');
      this.failAll('the terminal worker failed; the next call starts a fresh terminal');
    });
    this.worker.on('exit', () => { threadHeaps.release(heap); this.failAll('the terminal worker stopped'); });
  }

  post(m: ToPty, transfer?: Transferable[]): void {
    if (!this.stopped) this.worker.postMessage(m, transfer);
  }

  request<T>(m: DistributiveOmit<Request, 'req'>): Promise<T> {
    if (this.stopped) return Promise.reject(new ForgeError('terminal', 'the server is stopping'));
    const req = this.nextReq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(req, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...m, req } as ToPty);
    });
  }

  /**
   * Ends every shell, then the worker: it is terminated only once it reported each PTY's exit
   * seen (node-pty reports exits from a thread of its own, and one landing on a torn-down worker
   * is fatal to the process), or at PTY_STOP_DEADLINE_MS.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.worker.postMessage({ t: 'stop' } satisfies ToPty);
    const left = await Promise.race([
      new Promise<number>((r) => this.worker.on('message', (m: FromPty) => { if (m.t === 'stopped') r(m.left); })),
      new Promise<number>((r) => setTimeout(() => r(-1), PTY_STOP_DEADLINE_MS).unref()),
    ]);
    if (left !== 0) log.warn({ left, ms: PTY_STOP_DEADLINE_MS }, 'shells whose exit was not seen at stop; ending the terminal worker anyway');
    this.failAll('the server is stopping');
    await this.worker.terminate();
  }

  private failAll(message: string): void {
    for (const p of this.pending.values()) p.reject(new ForgeError('terminal', message));
    this.pending.clear();
  }
}
