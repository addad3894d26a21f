/**
 * Random values of every type msgpack and JSON carry, and byte mutations of encoded messages:
 * the raw material each target's generator shapes into its own inputs.
 */
import type { Rng } from './prng.js';

/** Longest string a huge value carries, characters: under the viewer socket's 16 MiB bound, msgpack header included. */
export const HUGE_STRING_MAX_CHARS = 15 * 1024 * 1024;
/** Elements in a huge array: msgpack spends a byte on a small int, so this stays under the socket's bound. */
export const HUGE_ARRAY_MAX_ITEMS = 4 * 1024 * 1024;
/** Deepest nesting a huge value reaches: far past any real message's few levels. */
export const HUGE_NESTING_MAX_DEPTH = 100_000;
/** Nesting of an ordinary random value: keeps most inputs small and quick. */
const VALUE_MAX_DEPTH = 4;

const ODD_NUMBERS = [0, -0, -1, 1, 0.5, -0.5, 2 ** 31, 2 ** 31 - 1, -(2 ** 31), 2 ** 32, 2 ** 32 - 1, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 5e-324, NaN, Infinity, -Infinity];
const ODD_STRINGS = ['', ' ', '\0', 'null', 'undefined', 'true', '0', '-1', 'NaN', '__proto__', 'constructor', 'toString', '../../etc/passwd', '%s%s%n', '\u202e', '\ud800', '\uffff', '😀', 'e1', 'p-1', 'default/proj/lead', 'other/p/lead', '*', 'a'.repeat(65), '\x1b[2J', '<script>', '{"t":"ping"}'];
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_/.=:;,"\'\\{}[]()<>!?@#$%^&*~`|+\n\t';

export function randomNumber(rng: Rng): number {
  switch (rng.int(0, 4)) {
    case 0: return rng.pick(ODD_NUMBERS);
    case 1: return rng.int(-10, 10);
    case 2: return rng.int(0, 5000);
    case 3: return (rng.next() - 0.5) * 10 ** rng.int(0, 20);
    default: return rng.int(-(2 ** 31), 2 ** 31);
  }
}

/** A string: odd words, printable noise, or any code units at all (lone surrogates included). */
export function randomString(rng: Rng, max = 64): string {
  switch (rng.int(0, 3)) {
    case 0: return rng.pick(ODD_STRINGS);
    case 1: {
      const n = rng.size(max);
      let s = '';
      for (let i = 0; i < n; i++) s += ALPHABET[rng.int(0, ALPHABET.length - 1)];
      return s;
    }
    case 2: {
      const n = rng.size(max);
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCharCode(rng.int(0, 0xffff));
      return s;
    }
    default: return rng.pick(ODD_STRINGS) + String(rng.int(0, 99));
  }
}

/** Any value a decoder may meet: scalars, bytes, arrays and maps, a few levels deep. */
/** Sets `o[key]` as its own field even when `key` is `__proto__` (an assignment would set its prototype, not send a field named so). */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export function randomValue(rng: Rng, depth = 0): unknown {
  const leaf = depth >= VALUE_MAX_DEPTH;
  switch (rng.int(0, leaf ? 6 : 8)) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: case 3: return randomNumber(rng);
    case 4: case 5: return randomString(rng);
    case 6: return rng.chance(0.5) ? undefined : rng.bytes(rng.size(32));
    case 7: return Array.from({ length: rng.size(6) }, () => randomValue(rng, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = rng.size(5); i > 0; i--) setOwn(o, randomString(rng, 12), randomValue(rng, depth + 1));
      return o;
    }
  }
}

/** A value at the edge of the socket's bound: a huge string or a huge array. */
export function hugeValue(rng: Rng): unknown {
  return rng.chance(0.5) ? 'x'.repeat(rng.int(1, HUGE_STRING_MAX_CHARS)) : new Array<number>(rng.int(1, HUGE_ARRAY_MAX_ITEMS)).fill(1);
}

/**
 * A msgpack map `{t: kind, deep: [[[…0…]]]}` nested `depth` levels, written byte by byte: an
 * encoder would recurse as deep as the nesting, and the point is the decoder's recursion.
 */
export function nestedMsgpack(kind: string, depth: number, asMap: boolean): Uint8Array {
  const t = new TextEncoder().encode(kind);
  const head = [0x82, 0xa1, 0x74, 0xd9, t.length, ...t, 0xa4, ...new TextEncoder().encode('deep')];
  // fixarray of one (0x91) or fixmap of one with key "a" (0x81 0xa1 0x61), then the leaf 0.
  const level = asMap ? [0x81, 0xa1, 0x61] : [0x91];
  const out = new Uint8Array(head.length + depth * level.length + 1);
  out.set(head, 0);
  for (let i = 0; i < depth; i++) out.set(level, head.length + i * level.length);
  return out;
}

/** Bytes changed the way a broken sender or a flipped bit changes them. */
export function mutate(rng: Rng, input: Uint8Array): Uint8Array {
  let b: Uint8Array = input.slice();
  for (let n = rng.int(1, 4); n > 0; n--) {
    switch (rng.int(0, 6)) {
      case 0: // truncate
        b = b.slice(0, rng.int(0, b.length));
        break;
      case 1: // flip a bit
        if (b.length) { const i = rng.int(0, b.length - 1); b[i] = b[i]! ^ (1 << rng.int(0, 7)); }
        break;
      case 2: // set a byte to a msgpack type marker or anything
        if (b.length) b[rng.int(0, b.length - 1)] = rng.chance(0.5) ? rng.pick([0xc0, 0xc1, 0xc4, 0xc7, 0xd4, 0xd9, 0xdc, 0xdd, 0xde, 0xdf, 0xff, 0x80, 0x90, 0xa0]) : rng.int(0, 255);
        break;
      case 3: { // insert random bytes
        const at = rng.int(0, b.length);
        b = concat(b.slice(0, at), rng.bytes(rng.int(1, 8)), b.slice(at));
        break;
      }
      case 4: { // duplicate a slice
        const from = rng.int(0, b.length);
        const to = rng.int(from, b.length);
        b = concat(b, b.slice(from, to));
        break;
      }
      case 5: { // a length field made huge: 0xdb (str32) / 0xdd (array32) / 0xdf (map32) with a big count
        const at = rng.int(0, b.length);
        b = concat(b.slice(0, at), new Uint8Array([rng.pick([0xdb, 0xdd, 0xdf, 0xc6]), 0x7f, 0xff, 0xff, 0xff]), b.slice(at));
        break;
      }
      default: // drop a byte
        if (b.length) { const i = rng.int(0, b.length - 1); b = concat(b.slice(0, i), b.slice(i + 1)); }
    }
  }
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}
