/**
 * Bounds the repeat counts of the control sequences a terminal runs once per count: delete and
 * insert lines (CSI n M / L), scroll up and down (CSI n S / T), repeat the last character
 * (CSI n b) and the tab moves (CSI n I / Z). xterm.js loops once per count, so a program's
 * `printf '\e[99999999M'` froze the screen model (and every seat's terminal with its worker) and
 * would freeze every person's page drawing it. A count past the bound does nothing more on any
 * screen forge draws, so clamping it changes nothing a person can see.
 *
 * The PTY's reads may cut a sequence anywhere: a sequence still open at a read's end waits for the
 * next read (at most CARRY_MAX_BYTES; a longer one is no count sequence and passes as it is).
 *
 * This clamp reads bytes, not the parser's state, so some counts pass it (a control inside the
 * count, a C1 introducer): the parsers themselves bound every count as they read it
 * (src/shared/term-repeats.ts), in the screen model and in the web client.
 */

/** Largest count kept for the line and scroll sequences: past any screen's rows (TERM_ROWS_MAX is 300). */
export const LINE_COUNT_MAX = 1_000;
/** Largest count kept for repeat and tab moves: past any screen's cells on a row, and cheap to run. */
export const REPEAT_COUNT_MAX = 65_535;
/** Longest open sequence held for the next read, bytes: a count sequence is a handful of bytes. */
export const CARRY_MAX_BYTES = 64;

const ESC = 0x1b;
const LBRACKET = 0x5b;
/** Final bytes whose counts are bounded, and the bound of each. */
const BOUND = new Map<number, number>([
  [0x4d, LINE_COUNT_MAX], // M: delete lines
  [0x4c, LINE_COUNT_MAX], // L: insert lines
  [0x53, LINE_COUNT_MAX], // S: scroll up
  [0x54, LINE_COUNT_MAX], // T: scroll down
  [0x62, REPEAT_COUNT_MAX], // b: repeat the preceding character
  [0x49, REPEAT_COUNT_MAX], // I: tab forward
  [0x5a, REPEAT_COUNT_MAX], // Z: tab backward
]);

const isParam = (b: number): boolean => b >= 0x30 && b <= 0x3f;
const isIntermediate = (b: number): boolean => b >= 0x20 && b <= 0x2f;
const isFinal = (b: number): boolean => b >= 0x40 && b <= 0x7e;

export class CountClamp {
  private carry: Uint8Array | null = null;

  /** The read as the terminal should see it: counts bounded, an open sequence at its end held back. */
  pass(read: Uint8Array): Uint8Array {
    let bytes = read;
    if (this.carry) {
      bytes = new Uint8Array(this.carry.length + read.length);
      bytes.set(this.carry);
      bytes.set(read, this.carry.length);
      this.carry = null;
    }
    if (bytes.indexOf(ESC) === -1) return bytes;
    const out: Uint8Array[] = [];
    let from = 0;
    let i = bytes.indexOf(ESC);
    while (i !== -1) {
      if (i + 1 >= bytes.length) return this.hold(bytes, from, i, out);
      if (bytes[i + 1] !== LBRACKET) { i = bytes.indexOf(ESC, i + 1); continue; }
      let j = i + 2;
      while (j < bytes.length && isParam(bytes[j]!)) j++;
      while (j < bytes.length && isIntermediate(bytes[j]!)) j++;
      if (j >= bytes.length) {
        if (j - i <= CARRY_MAX_BYTES) return this.hold(bytes, from, i, out);
        break;
      }
      const bound = isFinal(bytes[j]!) ? BOUND.get(bytes[j]!) : undefined;
      if (bound !== undefined) {
        const params = bytes.subarray(i + 2, j);
        const clamped = clampParams(params, bound);
        if (clamped) {
          out.push(bytes.subarray(from, i + 2), clamped);
          from = j;
        }
      }
      i = bytes.indexOf(ESC, j);
    }
    return out.length === 0 ? bytes : join(out, bytes.subarray(from));
  }

  private hold(bytes: Uint8Array, from: number, at: number, out: Uint8Array[]): Uint8Array {
    this.carry = bytes.slice(at);
    return join(out, bytes.subarray(from, at));
  }
}

/** The parameter bytes with every number past `bound` written as `bound`; null when none is. */
function clampParams(params: Uint8Array, bound: number): Uint8Array | null {
  let text = '';
  for (const b of params) text += String.fromCharCode(b);
  let changed = false;
  const next = text.replace(/\d+/g, (n) => {
    if (Number(n) <= bound) return n;
    changed = true;
    return String(bound);
  });
  if (!changed) return null;
  const o = new Uint8Array(next.length);
  for (let k = 0; k < next.length; k++) o[k] = next.charCodeAt(k);
  return o;
}

function join(parts: Uint8Array[], last: Uint8Array): Uint8Array {
  if (parts.length === 0) return last;
  const n = parts.reduce((s, p) => s + p.length, last.length);
  const o = new Uint8Array(n);
  let at = 0;
  for (const p of [...parts, last]) { o.set(p, at); at += p.length; }
  return o;
}
