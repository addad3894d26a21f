/**
 * The screen model's feed. Bytes wait here while the model parses the batch before them, then go
 * as one batch. A flood of plain text longer than the model keeps is cut to the lines that stay:
 * bytes that would scroll past the scrollback before anyone could read them are never parsed.
 *
 * Why the cut is exact. Plain text (printable characters, CR, LF, tab, backspace; no escape, no
 * other control) changes only the cells it writes, the cursor, and which rows exist. Once a
 * batch's tail carries at least (kept rows + screen rows) line feeds with a full-screen scroll
 * region, every row the model keeps was created blank by a line feed inside the tail and written
 * only by the tail, so the rows before it, parsed or not, have all left the model. The parser must
 * stand at ground when the batch starts (no sequence half read), which is read from the model.
 */
import type { Terminal } from '@xterm/headless';
import { loadAddon } from '../addon.js';
import { parserAtGround, scrollRegion } from './model-internals.js';

/**
 * native/plaintext: the same judgement 16 bytes at a time (~0.2 ms per MB of a `cat` flood in
 * 4 KB reads, against ~2 ms for the walk below), or null where it did not build.
 */
export const plainNative = loadAddon<{ isPlain(bytes: Uint8Array): boolean }>('forge-plaintext').addon;

/**
 * Bytes a flood's batch gathers before the model parses it. The cut keeps a fixed number of lines,
 * so the bigger the batch the more of it is skipped: parsing the bench's `cat` file cost 17-20 ms
 * CPU per MB in 256 KB batches and ~6 ms in 1 MB ones. Kept under the model backlog that pauses
 * the PTY (MODEL_BACKLOG_HIGH_BYTES), so a flood keeps flowing while a batch gathers.
 */
export const MODEL_FLOOD_BATCH_BYTES = 2 * 1024 * 1024;
/**
 * Longest a flood's bytes wait for their batch, ms: marks, title and facts lag a flood by at most
 * this. At the 40-60 MB/s a `cat` flood runs here, 25 ms held batches to ~1 MB.
 */
export const MODEL_FLOOD_WAIT_MS = 50;
/** A batch at least this big says a flood is under way, bytes; after a smaller one the next parses at once. */
export const MODEL_FLOOD_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * Bytes that are not plain text: every C0 control but BS, TAB, LF and CR (ESC, SO/SI, VT, FF,
 * CAN…), and 0xC2, the UTF-8 lead byte of the C1 controls (U+0080–U+009F), checked with its
 * follower.
 */
const NOT_PLAIN = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) NOT_PLAIN[b] = b === 0x08 || b === 0x09 || b === LF || b === CR ? 0 : 1;
NOT_PLAIN[0xc2] = 2;

/** Whether `bytes` is plain text: by native/plaintext where it built, else by the walk below. */
export const plainText: (bytes: Uint8Array) => boolean = plainNative ? (b) => plainNative.isPlain(b) : (b) => isPlain(b);

/** Whether `bytes` is plain text from `from` on. */
export function isPlain(bytes: Uint8Array, from = 0): boolean {
  // Most floods that are not plain are coloured: ESC is found at memchr speed before the word walk.
  if (bytes.indexOf(0x1b, from) !== -1) return false;
  const end = bytes.length;
  let i = from;
  while (i < end && ((bytes.byteOffset + i) & 3) !== 0) if (!plainAt(bytes, i++)) return false;
  if (i >= end) return true;
  // Four bytes at a time: a word of printable ASCII (0x20-0x7f) passes with one test; a word with a
  // control, or UTF-8, is looked at byte by byte (in a text flood, the CR LF words and little more).
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (end - i) >> 2);
  for (let k = 0; k < words.length; k++) {
    const w = words[k];
    if ((((w - 0x20202020) | w) & 0x80808080) === 0) continue;
    const at = i + k * 4;
    if (!plainAt(bytes, at) || !plainAt(bytes, at + 1) || !plainAt(bytes, at + 2) || !plainAt(bytes, at + 3)) return false;
  }
  for (let j = i + words.length * 4; j < end; j++) if (!plainAt(bytes, j)) return false;
  // A C1 lead at a chunk's end is judged with the next chunk's first byte by the caller's walk.
  return true;
}

function plainAt(bytes: Uint8Array, i: number): boolean {
  const kind = NOT_PLAIN[bytes[i]];
  if (kind === 0) return true;
  if (kind === 1) return false;
  return !(i + 1 < bytes.length && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9f);
}

interface Entry { bytes: Uint8Array; parsed?: () => void; barrier: boolean }

export class ModelFeed {
  private queue: Entry[] = [];
  /** The batch the model is parsing. */
  private inFlight: Entry[] = [];
  private queuedBytes = 0;
  private parsing = false;
  /** Size of the last batch handed to the model, bytes. */
  lastBatchBytes = 0;
  /** When the batch now gathering got its first byte (performance.now()). */
  private gatheringSince = 0;
  private gatherTimer?: NodeJS.Timeout;
  private disposed = false;
  /** Bytes written and not parsed yet (queued, or in the batch the model is parsing). */
  backlog = 0;
  /** Bytes never parsed because they scrolled past what the model keeps: a measure of the cut. */
  skippedBytes = 0;

  constructor(private readonly model: Terminal, private readonly scrollback: number) {}

  /** Queues bytes (one piece or several in order); `parsed` runs once they (and maybe bytes queued after them) are in the model. */
  write(bytes: Uint8Array | Uint8Array[], parsed?: () => void): void {
    const pieces = Array.isArray(bytes) ? bytes : [bytes];
    if (this.queuedBytes === 0) this.gatheringSince = performance.now();
    for (let i = 0; i < pieces.length; i++) {
      this.backlog += pieces[i].length;
      this.queuedBytes += pieces[i].length;
      this.queue.push({ bytes: pieces[i], parsed: i === pieces.length - 1 ? parsed : undefined, barrier: false });
    }
    if (pieces.length === 0 && parsed) this.queue.push({ bytes: EMPTY, parsed, barrier: false });
    this.pump();
  }

  /** Runs `cb` once every byte queued before it is parsed, before any byte queued after it is. */
  afterParsed(cb: () => void): void {
    this.queue.push({ bytes: EMPTY, parsed: cb, barrier: true });
    this.pump();
  }

  /** Nothing reaches the model after this; whoever waits on it is answered now, as after a parse. */
  dispose(): void {
    this.disposed = true;
    clearTimeout(this.gatherTimer);
    const waiting = [...this.inFlight.splice(0), ...this.queue.splice(0)];
    this.backlog = 0;
    this.queuedBytes = 0;
    for (const e of waiting) e.parsed?.();
  }

  private pump(): void {
    if (this.disposed) { setImmediate(() => this.dispose()); return; }
    if (this.parsing || this.queue.length === 0) return;
    let end = 0;
    while (end < this.queue.length && !this.queue[end].barrier) end++;
    if (end === this.queue.length && this.gathers()) return;
    clearTimeout(this.gatherTimer);
    this.gatherTimer = undefined;
    const batch = this.queue.splice(0, Math.min(end + 1, this.queue.length));
    const chunks = batch.map((e) => e.bytes).filter((b) => b.length > 0);
    const total = chunks.reduce((n, b) => n + b.length, 0);
    this.queuedBytes -= total;
    if (this.queuedBytes > 0) this.gatheringSince = performance.now();
    this.lastBatchBytes = total;
    const from = this.cutAt(chunks);
    this.skippedBytes += from;
    const data = concatFrom(chunks, total, from);
    this.parsing = true;
    this.inFlight = batch;
    this.model.write(data, () => {
      if (this.disposed) return;
      this.parsing = false;
      this.inFlight = [];
      this.backlog -= total;
      for (const e of batch) e.parsed?.();
      this.pump();
    });
  }

  /** During a flood, whether the queued bytes wait for more (a timer ends the wait). */
  private gathers(): boolean {
    if (this.lastBatchBytes < MODEL_FLOOD_BYTES || this.queuedBytes >= MODEL_FLOOD_BATCH_BYTES) return false;
    const left = this.gatheringSince + MODEL_FLOOD_WAIT_MS - performance.now();
    if (left <= 0) return false;
    this.gatherTimer ??= setTimeout(() => { this.gatherTimer = undefined; this.pump(); }, left);
    return true;
  }

  /**
   * Where the model may start reading the batch, bytes from its start: after the CR LF that leaves
   * enough line feeds behind it, when the batch is plain and the model is in a state the cut holds
   * for; else 0.
   */
  private cutAt(chunks: Uint8Array[]): number {
    const needed = this.scrollback + 2 * this.model.rows + 1;
    // Count line feeds from the end; stop at the one that leaves `needed` of them after it.
    let seen = 0;
    let ci = chunks.length - 1;
    let at = -1;
    for (; ci >= 0; ci--) {
      const c = chunks[ci];
      let pos = c.length - 1;
      while (pos >= 0) {
        const lf = c.lastIndexOf(LF, pos);
        if (lf === -1) break;
        if (seen === needed) { at = lf; break; }
        seen++;
        pos = lf - 1;
      }
      if (at !== -1) break;
    }
    if (at === -1) return 0;
    // The cut goes after a CR LF, so the tail starts at column 0 of a fresh line.
    const before = at > 0 ? chunks[ci][at - 1] : ci > 0 ? chunks[ci - 1][chunks[ci - 1].length - 1] : -1;
    if (before !== CR) return 0;
    if (!this.cutHolds() || !chunksPlain(chunks)) return 0;
    let from = at + 1;
    for (let i = 0; i < ci; i++) from += chunks[i].length;
    return from;
  }

  private cutHolds(): boolean {
    const region = scrollRegion(this.model);
    return parserAtGround(this.model) && region !== null && region.top === 0 && region.bottom === this.model.rows - 1;
  }
}

const EMPTY = new Uint8Array(0);

/** The plainness of the batch as one stream: a C1 control split across two chunks is still seen. */
function chunksPlain(chunks: Uint8Array[]): boolean {
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i];
    if (!plainText(c)) return false;
    if (c.length && c[c.length - 1] === 0xc2 && i + 1 < chunks.length) {
      const next = chunks[i + 1][0];
      if (next >= 0x80 && next <= 0x9f) return false;
    }
  }
  return true;
}

/** The batch's bytes from `from` on, as one array (copied only when it spans chunks). */
function concatFrom(chunks: Uint8Array[], total: number, from: number): Uint8Array {
  let skip = from;
  let i = 0;
  while (i < chunks.length && skip >= chunks[i].length) { skip -= chunks[i].length; i++; }
  if (i >= chunks.length) return EMPTY;
  if (i === chunks.length - 1) return chunks[i].subarray(skip);
  const out = new Uint8Array(total - from);
  let o = 0;
  for (let k = i; k < chunks.length; k++) {
    const part = k === i ? chunks[k].subarray(skip) : chunks[k];
    out.set(part, o);
    o += part.length;
  }
  return out;
}
