/**
 * Where the server's memory is, as its /metrics says it: the main thread's heap, each worker's
 * heap, and glibc's arenas (held, and of that free). A long fuzz prints it beside the RSS, so a
 * climb is told apart: a heap that grows is the program's, arenas that grow with their free share
 * are the allocator's.
 */
import type { ForgeServer } from './server.js';

/** How often the watch reads /metrics, ms: the gauges move once a second; a fuzz prints every 10 s. */
export const MEMORY_WATCH_MS = 10_000;

const MB = 1024 * 1024;

/** One line: `main 71, pty 9, relay 12, capture 6, encode 5 MB heap; arenas 140 MB (60 free)`. */
export function memoryLine(metrics: string): string {
  const pick = (name: string, labels = ''): number | undefined => {
    const m = new RegExp(`^${name}${labels ? `\\{${labels}[^}]*\\}` : ''} (\\S+)$`, 'm').exec(metrics);
    return m ? Number(m[1]) : undefined;
  };
  const heaps: string[] = [];
  const main = pick('forge_process_heap_used_bytes');
  if (main !== undefined) heaps.push(`main ${(main / MB).toFixed(0)}`);
  for (const thread of ['pty', 'relay', 'capture', 'encode']) {
    const v = pick('forge_thread_heap_used_bytes', `thread="${thread}"`);
    if (v !== undefined) heaps.push(`${thread} ${(v / MB).toFixed(0)}`);
  }
  const held = pick('forge_process_malloc_arena_bytes');
  const free = pick('forge_process_malloc_arena_free_bytes');
  const arenas = held === undefined ? '' : `; arenas ${(held / MB).toFixed(0)} MB (${((free ?? 0) / MB).toFixed(0)} free)`;
  return heaps.length ? `heap ${heaps.join(', ')} MB${arenas}` : '';
}

/** Reads the server's /metrics every MEMORY_WATCH_MS; `line` is the newest reading ('' before the first). */
export class MemoryWatch {
  line = '';
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly server: ForgeServer) {
    this.timer = setInterval(() => void this.read(), MEMORY_WATCH_MS);
    this.timer.unref();
    void this.read();
  }

  private async read(): Promise<void> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.server.port}/metrics`, { headers: { authorization: `Bearer ${this.server.agentToken}` }, signal: AbortSignal.timeout(MEMORY_WATCH_MS) });
      if (res.ok) this.line = memoryLine(await res.text());
    } catch { /* a busy or ended server: the last line stands */ }
  }

  stop(): void { clearInterval(this.timer); }
}
