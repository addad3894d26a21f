/**
 * Every thread's JavaScript heap, for /metrics. The process's RSS alone cannot say which thread
 * holds a climb (the pty worker's screen models, the relay's sockets, a host's capture or encode),
 * and a worker's heap cannot be read from the main thread on Node 20. So each worker writes its
 * own heap into a slot of one shared board, and the main thread reads the board when it writes
 * its gauges: no message crosses a thread for it.
 */
import { getHeapStatistics } from 'node:v8';

/** Slots on the board: the relay, the pty worker, and a capture and an encoder per host, with room for 30 hosts. */
export const THREAD_HEAP_SLOTS = 64;
/** How often a worker writes its heap, ms: the gauges are pushed once a second. */
export const THREAD_HEAP_REPORT_MS = 1000;

/** Numbers per slot: used heap bytes, total heap bytes, external bytes, written-at (ms since epoch; 0 = free). */
const FIELDS = 4;

/** What a worker needs to write its slot; travels in its workerData. */
export interface HeapSlot { board: SharedArrayBuffer; slot: number }

/** The main thread's board: hands out a slot per worker, takes it back at the worker's exit, writes the gauges. */
export class ThreadHeapBoard {
  readonly sab = new SharedArrayBuffer(THREAD_HEAP_SLOTS * FIELDS * Float64Array.BYTES_PER_ELEMENT);
  private readonly cells = new Float64Array(this.sab);
  private readonly labels: Array<string | undefined> = new Array<string | undefined>(THREAD_HEAP_SLOTS).fill(undefined);

  /** A slot for the thread named `thread` (and its host's profile), or undefined when the board is full (that thread goes unmeasured). */
  claim(thread: string, profile?: string): HeapSlot | undefined {
    const slot = this.labels.indexOf(undefined);
    if (slot === -1) return undefined;
    this.labels[slot] = profile ? `thread="${thread}",profile="${profile}"` : `thread="${thread}"`;
    this.cells.fill(0, slot * FIELDS, (slot + 1) * FIELDS);
    return { board: this.sab, slot };
  }

  release(slot: HeapSlot | undefined): void {
    if (!slot) return;
    this.labels[slot.slot] = undefined;
    this.cells.fill(0, slot.slot * FIELDS, (slot.slot + 1) * FIELDS);
  }

  /** Prometheus lines for every claimed slot its worker has written. */
  gauges(): string {
    const rows: string[][] = [[], [], []];
    for (let s = 0; s < THREAD_HEAP_SLOTS; s++) {
      const label = this.labels[s];
      if (!label || this.cells[s * FIELDS + 3] === 0) continue;
      for (let f = 0; f < 3; f++) rows[f].push(`forge_thread_${NAMES[f]}{${label}} ${this.cells[s * FIELDS + f]}`);
    }
    return rows.map((r, f) => (r.length ? `# TYPE forge_thread_${NAMES[f]} gauge\n${r.join('\n')}` : '')).filter(Boolean).join('\n');
  }
}

const NAMES = ['heap_used_bytes', 'heap_total_bytes', 'external_bytes'];

/** The process's one board. */
export const threadHeaps = new ThreadHeapBoard();

/** In a worker: writes this thread's heap into its slot now and every THREAD_HEAP_REPORT_MS (the timer never keeps the thread alive). */
export function reportHeap(slot: HeapSlot | undefined): void {
  if (!slot) return;
  const cells = new Float64Array(slot.board);
  const at = slot.slot * FIELDS;
  const write = (): void => {
    const h = getHeapStatistics();
    cells[at] = h.used_heap_size;
    cells[at + 1] = h.total_heap_size;
    cells[at + 2] = h.external_memory;
    cells[at + 3] = Date.now();
  };
  write();
  setInterval(write, THREAD_HEAP_REPORT_MS).unref();
}
