/**
 * Shared-memory rings for the frame path: fixed slots in one SharedArrayBuffer, a small Int32
 * header per slot, and Atomics on the `state` word for publication. A writer fills a slot's
 * bytes, then stores its header fields, then stores READY; a reader that observes READY with an
 * Atomics load sees everything written before it. Threads never pass pixels, only slot indexes.
 *
 *   SharedArrayBuffer
 *   +------------------------------+------------------------------+-----+----------------+-----+
 *   | slot 0 header (Int32 words)  | slot 1 header (Int32 words)  | ... | slot 0 bytes   | ... |
 *   +------------------------------+------------------------------+-----+----------------+-----+
 *   0                              headerWords*4                        slots*headerWords*4
 *
 * FrameRing slot: one tab's whole viewport as RGBA (stride = w*4), plus the rectangles that
 * changed since the frame `baseSeq` of the same tab.
 *
 *   +-------+-------+-----+-----+---+---+----------+-------+--------------------------------+
 *   | state | holds | seq | tab | w | h | baseSeq  | bands | band 0: x y w h | band 1 ... |  +  RGBA pixels
 *   +-------+-------+-----+-----+---+---+----------+-------+--------------------------------+
 *
 * WebpRing slot: one encoded frame, already in wire form (protocol.ts header + WebP), as one
 * message (a keyframe) or several (the patches of one frame, each with its own header).
 *
 *   +-------+-----+-----+-------+---------+-------+-------+--------------------------+
 *   | state | seq | tab | flags | baseSeq | parts | bytes | part 0 length, part 1 ...|  +  messages back to back
 *   +-------+-----+-----+-------+---------+-------+-------+--------------------------+
 */

/** Slot states, shared by both rings. */
export const SLOT_FREE = 0;
/** The writer owns the slot's bytes. */
export const SLOT_WRITING = 1;
/** Published: readers may take it. */
export const SLOT_READY = 2;
/** FrameRing: the encoder took it (it stays the tab's reference frame until superseded). */
export const SLOT_TAKEN = 3;
/** WebpRing: the relay is sending it. */
export const SLOT_READING = 4;

// FrameRing header fields (Int32 word index within a slot header).
export const F_STATE = 0;
/** Encoder pins: the capture never rewrites a slot while this is above zero. */
export const F_HOLDS = 1;
export const F_SEQ = 2;
/** The frame id of the tab the slot's pixels are of. */
export const F_FRAME = 3;
export const F_W = 4;
export const F_H = 5;
export const F_BASE_SEQ = 6;
export const F_BANDS = 7;
export const F_BAND0 = 8;
/** Changed rectangles a frame carries; more are merged into fewer by the capture. */
export const FRAME_MAX_BANDS = 8;
export const FRAME_HEADER_WORDS = F_BAND0 + FRAME_MAX_BANDS * 4;

// WebpRing header fields.
export const W_STATE = 0;
export const W_SEQ = 1;
/** The frame id of the tab the slot's WebP is of. */
export const W_FRAME = 2;
export const W_FLAGS = 3;
export const W_BASE_SEQ = 4;
export const W_PARTS = 5;
export const W_BYTES = 6;
export const W_PART0 = 7;
/** Messages one encoded frame may hold: one per band, so the same bound as FRAME_MAX_BANDS. */
export const WEBP_MAX_PARTS = FRAME_MAX_BANDS;
export const WEBP_HEADER_WORDS = W_PART0 + WEBP_MAX_PARTS;

export interface Band { x: number; y: number; w: number; h: number }

/** The fixed-slot layout common to both rings. */
class SlotRing {
  readonly sab: SharedArrayBuffer;
  readonly slots: number;
  readonly slotBytes: number;
  readonly headerWords: number;
  protected readonly words: Int32Array;
  protected readonly dataStart: number;

  constructor(sab: SharedArrayBuffer, slots: number, slotBytes: number, headerWords: number) {
    this.sab = sab;
    this.slots = slots;
    this.slotBytes = slotBytes;
    this.headerWords = headerWords;
    this.dataStart = align(slots * headerWords * 4);
    if (sab.byteLength < this.dataStart + slots * slotBytes) throw new RangeError('the shared buffer is smaller than the ring it should hold');
    this.words = new Int32Array(sab, 0, slots * headerWords);
  }

  protected static bytesFor(slots: number, slotBytes: number, headerWords: number): number {
    return align(slots * headerWords * 4) + slots * slotBytes;
  }

  /** Word `field` of `slot`'s header, read with an Atomics load. */
  get(slot: number, field: number): number { return Atomics.load(this.words, slot * this.headerWords + field); }
  set(slot: number, field: number, value: number): void { Atomics.store(this.words, slot * this.headerWords + field, value); }
  cas(slot: number, field: number, expected: number, value: number): boolean {
    return Atomics.compareExchange(this.words, slot * this.headerWords + field, expected, value) === expected;
  }
  add(slot: number, field: number, delta: number): number { return Atomics.add(this.words, slot * this.headerWords + field, delta); }

  /** Byte offset of `slot`'s data in the shared buffer. */
  dataOffset(slot: number): number { return this.dataStart + slot * this.slotBytes; }
  /** A view (no copy) of `slot`'s data, `length` bytes. */
  bytes(slot: number, length = this.slotBytes): Uint8Array { return new Uint8Array(this.sab, this.dataOffset(slot), length); }
}

function align(n: number): number { return (n + 63) & ~63; }

/** Raw RGBA frames, written by the capture, read by the encoder. */
export class FrameRing extends SlotRing {
  /** Largest viewport a slot holds, px. */
  readonly maxWidth: number;
  readonly maxHeight: number;

  constructor(sab: SharedArrayBuffer, slots: number, maxWidth: number, maxHeight: number) {
    super(sab, slots, maxWidth * maxHeight * 4, FRAME_HEADER_WORDS);
    this.maxWidth = maxWidth;
    this.maxHeight = maxHeight;
  }

  static create(slots: number, maxWidth: number, maxHeight: number): FrameRing {
    return new FrameRing(new SharedArrayBuffer(SlotRing.bytesFor(slots, maxWidth * maxHeight * 4, FRAME_HEADER_WORDS)), slots, maxWidth, maxHeight);
  }

  /** The slot's pixels as RGBA bytes of its frame (w*h*4). */
  pixels(slot: number): Uint8Array { return this.bytes(slot, this.get(slot, F_W) * this.get(slot, F_H) * 4); }

  bands(slot: number): Band[] {
    const n = this.get(slot, F_BANDS);
    const out: Band[] = [];
    for (let i = 0; i < n; i++) {
      const o = F_BAND0 + i * 4;
      out.push({ x: this.get(slot, o), y: this.get(slot, o + 1), w: this.get(slot, o + 2), h: this.get(slot, o + 3) });
    }
    return out;
  }

  setBands(slot: number, bands: readonly Band[]): void {
    if (bands.length > FRAME_MAX_BANDS) throw new RangeError(`a frame carries at most ${FRAME_MAX_BANDS} bands`);
    bands.forEach((b, i) => {
      const o = F_BAND0 + i * 4;
      this.set(slot, o, b.x); this.set(slot, o + 1, b.y); this.set(slot, o + 2, b.w); this.set(slot, o + 3, b.h);
    });
    this.set(slot, F_BANDS, bands.length);
  }

  /**
   * Pins a published frame for reading: true when `slot` still holds `seq` and was READY (it
   * is now TAKEN) or, with `alsoTaken`, was already taken. The caller must `release` it.
   */
  pin(slot: number, seq: number, alsoTaken = false): boolean {
    this.add(slot, F_HOLDS, 1);
    if (this.get(slot, F_SEQ) === seq && (this.cas(slot, F_STATE, SLOT_READY, SLOT_TAKEN) || (alsoTaken && this.get(slot, F_STATE) === SLOT_TAKEN))) return true;
    this.add(slot, F_HOLDS, -1);
    return false;
  }

  release(slot: number): void { this.add(slot, F_HOLDS, -1); }

  /**
   * Claims a free slot for writing, skipping `exclude` (slots the writer still reads). A slot a
   * reader pinned is never claimed: the writer sets WRITING first and then checks the pins, the
   * reader adds its pin first and then checks the state, so one of them always backs off.
   */
  claim(exclude: ReadonlySet<number>): number {
    for (let s = 0; s < this.slots; s++) {
      if (exclude.has(s) || this.get(s, F_HOLDS) !== 0) continue;
      if (!this.cas(s, F_STATE, SLOT_FREE, SLOT_WRITING)) continue;
      if (this.get(s, F_HOLDS) === 0) return s;
      this.set(s, F_STATE, SLOT_FREE);
    }
    return -1;
  }
}

/** One encoded frame in wire form, as the relay reads it. */
export interface WebpFrame { seq: number; frame: number; flags: number; baseSeq: number; parts: Uint8Array[] }

/** Encoded frames, written by the encoder, read by the relay. */
export class WebpRing extends SlotRing {
  private next = 0;

  static create(slots: number, slotBytes: number): WebpRing {
    return new WebpRing(new SharedArrayBuffer(SlotRing.bytesFor(slots, slotBytes, WEBP_HEADER_WORDS)), slots, slotBytes);
  }

  constructor(sab: SharedArrayBuffer, slots: number, slotBytes: number) {
    super(sab, slots, slotBytes, WEBP_HEADER_WORDS);
  }

  /**
   * Writes one frame's messages into a slot and publishes it; returns the slot, or -1 when the
   * messages do not fit a slot. Slots are reused round-robin: a frame the relay has not taken by
   * then is overwritten (newest frame wins), one it is sending is skipped.
   */
  publish(f: { seq: number; frame: number; flags: number; baseSeq: number }, parts: readonly Uint8Array[]): number {
    const total = parts.reduce((n, p) => n + p.byteLength, 0);
    if (total > this.slotBytes || parts.length > WEBP_MAX_PARTS || parts.length === 0) return -1;
    for (let tries = 0; tries < this.slots; tries++) {
      const s = this.next;
      this.next = (this.next + 1) % this.slots;
      if (!this.cas(s, W_STATE, SLOT_FREE, SLOT_WRITING) && !this.cas(s, W_STATE, SLOT_READY, SLOT_WRITING)) continue;
      const dst = this.bytes(s);
      let off = 0;
      parts.forEach((p, i) => { dst.set(p, off); off += p.byteLength; this.set(s, W_PART0 + i, p.byteLength); });
      this.set(s, W_SEQ, f.seq);
      this.set(s, W_FRAME, f.frame);
      this.set(s, W_FLAGS, f.flags);
      this.set(s, W_BASE_SEQ, f.baseSeq);
      this.set(s, W_PARTS, parts.length);
      this.set(s, W_BYTES, total);
      this.set(s, W_STATE, SLOT_READY);
      return s;
    }
    return -1;
  }

  /**
   * Takes a published frame for sending: views into the shared buffer (valid until `done`), or
   * undefined when the slot no longer holds `seq` of `tab` (a newer frame overwrote it).
   */
  take(slot: number, frame: number, seq: number): WebpFrame | undefined {
    if (!this.cas(slot, W_STATE, SLOT_READY, SLOT_READING)) return undefined;
    if (this.get(slot, W_SEQ) !== seq || this.get(slot, W_FRAME) !== frame) {
      this.set(slot, W_STATE, SLOT_READY);
      return undefined;
    }
    const parts: Uint8Array[] = [];
    let off = this.dataOffset(slot);
    const n = this.get(slot, W_PARTS);
    for (let i = 0; i < n; i++) {
      const len = this.get(slot, W_PART0 + i);
      parts.push(new Uint8Array(this.sab, off, len));
      off += len;
    }
    return { seq, frame, flags: this.get(slot, W_FLAGS), baseSeq: this.get(slot, W_BASE_SEQ), parts };
  }

  done(slot: number): void { this.set(slot, W_STATE, SLOT_FREE); }
}
