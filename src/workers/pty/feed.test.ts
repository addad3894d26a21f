/**
 * The model's feed skips what scrolls past the scrollback, and the model it feeds ends in the
 * same state, row for row and attribute for attribute, as a model that parsed every byte.
 */
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import { MODEL_FLOOD_BATCH_BYTES, ModelFeed, isPlain, plainNative } from './feed.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;
type Term = InstanceType<typeof Terminal>;

const SCROLLBACK = 200;
const COLS = 60;
const ROWS = 12;

function model(): { term: Term; ser: InstanceType<typeof SerializeAddon> } {
  const term = new Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
  const ser = new SerializeAddon();
  term.loadAddon(ser as never);
  return { term, ser };
}

function snapshot(m: { term: Term; ser: InstanceType<typeof SerializeAddon> }): Record<string, unknown> {
  const b = m.term.buffer.active;
  const wrapped: boolean[] = [];
  for (let y = 0; y < b.length; y++) wrapped.push(b.getLine(y)?.isWrapped ?? false);
  return { screen: m.ser.serialize(), cursor: [b.cursorX, b.cursorY], baseY: b.baseY, length: b.length, wrapped, type: b.type };
}

/** The same chunks: one model through the feed (queued at once, so they are one batch), one whole. */
async function both(setup: Array<string | Uint8Array>, flood: Uint8Array[]): Promise<{ fed: Record<string, unknown>; whole: Record<string, unknown>; skipped: number }> {
  const a = model();
  const b = model();
  for (const s of setup) {
    await new Promise<void>((r) => a.term.write(s, r));
    await new Promise<void>((r) => b.term.write(s, r));
  }
  const feed = new ModelFeed(a.term, SCROLLBACK);
  // An empty first write keeps the model busy while the flood queues behind it as one batch.
  feed.write(new Uint8Array(0));
  // As the terminal hands them over: a flush's PTY reads together, in order.
  for (let i = 0; i < flood.length; i += 5) feed.write(flood.slice(i, i + 5));
  await new Promise<void>((r) => feed.afterParsed(r));
  for (const c of flood) b.term.write(c);
  await new Promise<void>((r) => b.term.write('', r));
  const out = { fed: snapshot(a), whole: snapshot(b), skipped: feed.skippedBytes };
  a.term.dispose();
  b.term.dispose();
  return out;
}

/** A seeded generator, so a failing stream can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');

/** Plain lines of every kind a flood holds: short, empty, wider than the screen, tabs, backspaces, wide characters. */
function plainLines(count: number, rand: () => number): string {
  const pieces = ['the quick brown fox ', 'a\tb\tc ', 'abc\b\bxy ', '漢字テスト ', 'é ü ñ ', '0123456789'];
  let out = '';
  for (let i = 0; i < count; i++) {
    let line = `${i} `;
    const n = Math.floor(rand() * 12);
    for (let k = 0; k < n; k++) line += pieces[Math.floor(rand() * pieces.length)];
    out += line + '\r\n';
  }
  return out;
}

/** Splits bytes at random places, as PTY reads do (a UTF-8 character may be split too). */
function split(bytes: Uint8Array, rand: () => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = 1 + Math.floor(rand() * 3000);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

describe('the model feed', () => {
  it('a plain flood longer than the model keeps is partly skipped and leaves the model as parsing it all would', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rand = rng(seed);
      // Whatever the screen held before: colours set, the cursor mid-line, a bold pen.
      const setup = ['\x1b[31mred\x1b[0m prompt $ ', 'partial line with \x1b[1mbold pen'];
      const { fed, whole, skipped } = await both(setup, split(enc(plainLines(2000, rand)), rand));
      expect(fed).toEqual(whole);
      expect(skipped).toBeGreaterThan(0);
    }
  });

  it('a flood of short lines, none wrapping, is cut no closer than the rows the model keeps allow', async () => {
    let lines = '';
    for (let i = 0; i < 1000; i++) lines += `${i}\r\n`;
    const rand = rng(11);
    const { fed, whole, skipped } = await both(['\x1b[5;20Hcursor left mid-screen'], split(enc(lines), rand));
    expect(fed).toEqual(whole);
    expect(skipped).toBeGreaterThan(0);
  });

  it('a flood that starts inside a UTF-8 character or ends mid-line is still exact', async () => {
    const rand = rng(9);
    const flood = Buffer.concat([Buffer.from([0xa2]), enc(plainLines(1500, rand)), enc('unfinished 漢')]);
    const a = await both([Buffer.from([0xe6, 0xbc])], split(flood, rand));
    expect(a.fed).toEqual(a.whole);
  });

  it('nothing is skipped when the flood holds escapes, C1 controls or shifts, or the model is mid-sequence or in a scroll region', async () => {
    const rand = rng(7);
    const lines = plainLines(1500, rand);
    const cases: Array<{ setup: Array<string | Uint8Array>; flood: string }> = [
      { setup: [], flood: lines.replace(/fox/g, '\x1b[32mfox\x1b[0m') },
      { setup: [], flood: lines + '\u009b31m' + lines },
      { setup: [], flood: lines + '\x0e' + lines },
      // The sequence started before the flood is finished by its first bytes: a colour for everything after.
      { setup: ['\x1b[3'], flood: '1m' + lines },
      // An unterminated title: everything after is the title's, not the screen's.
      { setup: ['\x1b]2;title '], flood: lines },
      { setup: ['\x1b[3;8r'], flood: lines },
    ];
    for (const c of cases) {
      const { fed, whole, skipped } = await both(c.setup, split(enc(c.flood), rand));
      expect(fed).toEqual(whole);
      expect({ case: c.setup, skipped }).toEqual({ case: c.setup, skipped: 0 });
    }
  });

  it('a mark waiting for the parse runs after the bytes before it and before the bytes after it', async () => {
    const m = model();
    const feed = new ModelFeed(m.term, SCROLLBACK);
    const seen: string[] = [];
    feed.write(enc('one\r\n'));
    feed.write(enc('two\r\n'));
    feed.afterParsed(() => seen.push(m.term.buffer.active.getLine(1)?.translateToString(true) ?? ''));
    feed.write(enc('three\r\n'));
    feed.afterParsed(() => seen.push(m.term.buffer.active.getLine(2)?.translateToString(true) ?? ''));
    await new Promise<void>((r) => feed.afterParsed(r));
    expect(seen).toEqual(['two', 'three']);
    expect(feed.backlog).toBe(0);
    m.term.dispose();
  });

  it('during a flood, frame-sized pieces are gathered into one batch, and a lone piece still reaches the model', async () => {
    const m = model();
    const feed = new ModelFeed(m.term, SCROLLBACK);
    let text = '';
    for (let i = 0; text.length < MODEL_FLOOD_BATCH_BYTES; i++) text += `${i} the quick brown fox\r\n`;
    const piece = enc(text).subarray(0, MODEL_FLOOD_BATCH_BYTES / 3);
    await new Promise<void>((r) => feed.write(piece, r));
    // The model is idle when these arrive: without gathering the first would be parsed alone.
    await new Promise<void>((r) => { feed.write(piece); feed.write(piece); feed.write(piece, r); });
    expect(feed.lastBatchBytes).toBe(3 * piece.length);
    expect(feed.skippedBytes).toBeGreaterThan(0);
    // One piece and nothing after it: parsed once its wait is over, with no one asking.
    await new Promise<void>((r) => feed.write(piece, r));
    expect(feed.backlog).toBe(0);
    feed.dispose();
    m.term.dispose();
  });

  it('once the model is gone, whoever waits on the feed is answered instead of waiting for ever', async () => {
    const m = model();
    const feed = new ModelFeed(m.term, SCROLLBACK);
    const parsing = new Promise<void>((r) => feed.write(enc('before\r\n'), r));
    const queued = new Promise<void>((r) => feed.write(enc('queued\r\n'), r));
    feed.dispose();
    m.term.dispose();
    await Promise.all([parsing, queued]);
    await new Promise<void>((r) => feed.afterParsed(r));
    expect(feed.backlog).toBe(0);
  });

  it('plain text is told from controls by its bytes', () => {
    expect(isPlain(enc('abc\r\n\t\bé漢'))).toBe(true);
    expect(isPlain(enc('abc\x1b[0m'))).toBe(false);
    expect(isPlain(enc('abc\x07'))).toBe(false);
    expect(isPlain(enc('abc\u0090'))).toBe(false);
    expect(isPlain(enc('abc\u00a0'))).toBe(true);
  });

  it('native/plaintext is built, so a flood is judged 16 bytes at a time', () => {
    expect(plainNative).not.toBeNull();
  });

  it.for<[string, (b: Uint8Array) => boolean]>([
    ['the four-bytes-at-a-time walk', (b) => isPlain(b)],
    ['native/plaintext', (b) => plainNative!.isPlain(b)],
  ])('%s judges random bytes at every alignment as a byte-by-byte reading does', ([, judge]) => {
    const byByte = (b: Uint8Array): boolean => {
      for (let i = 0; i < b.length; i++) {
        if (b[i] < 0x20 && ![0x08, 0x09, 0x0a, 0x0d].includes(b[i])) return false;
        if (b[i] === 0xc2 && i + 1 < b.length && b[i + 1] >= 0x80 && b[i + 1] <= 0x9f) return false;
      }
      return true;
    };
    const rand = rng(3);
    const special = [0x0a, 0x0d, 0x09, 0x08, 0x1b, 0x07, 0xc2, 0x85, 0x9f, 0xa0, 0x7f, 0x80, 0x00];
    let plain = 0;
    for (let t = 0; t < 50_000; t++) {
      const n = Math.floor(rand() * 40);
      const b = Buffer.alloc(n + 3);
      for (let i = 0; i < b.length; i++) {
        const r = rand();
        b[i] = r < 0.93 ? 0x20 + Math.floor(rand() * 95) : special[Math.floor(rand() * special.length)];
      }
      const v = b.subarray(t % 4 === 3 ? 0 : t % 3, (t % 3) + n);
      const want = byByte(v);
      if (want) plain++;
      expect(judge(v)).toBe(want);
    }
    expect(plain).toBeGreaterThan(5_000);
    expect(plain).toBeLessThan(45_000);
  });
});
