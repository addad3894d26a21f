/**
 * Inputs for a terminal a fuzzer holds: typed data full of control sequences (CSI, OSC, DCS,
 * modes, huge repeat counts), resizes, acks and repaints with values in and out of range, and
 * the same messages with wrong types or mutated on the wire.
 */
import { encodeControl } from '../../src/shared/protocol.js';
import { TERM_COLS_MAX, TERM_COLS_MIN, TERM_ROWS_MAX, TERM_ROWS_MIN } from '../../src/shared/terminal.js';
import type { Rng } from './prng.js';
import { mutate, randomNumber, randomString, randomValue } from './values.js';
import { kindName, wrongType, type SocketInput } from './viewer-gen.js';

/** Longest typed data in one input, characters: a big paste, well under the 1 MiB keystroke bound (past it is its own case). */
const DATA_MAX_CHARS = 4096;
/** Chance of a paste at or past the server's keystroke bound (TERM_INPUT_MAX_CHARS): costly, so rare. */
const OVERSIZE_PASTE_CHANCE = 1 / 2000;

const CSI_FINALS = '@ABCDEFGHIJKLMPSTXZ`abcdefghilmnpqrstuvxz{|}~';
const PRIVATE_MODES = [1, 3, 5, 6, 7, 9, 12, 25, 47, 66, 69, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1047, 1048, 1049, 2004, 2026];

function param(rng: Rng): string {
  return String(rng.pick([0, 1, 2, 5, 80, 255, 256, 9999, 65535, 65536, 99999999, 2 ** 31, rng.int(0, 500)]));
}

/** One control sequence or control character, of the kinds a screen model must parse. */
export function controlSequence(rng: Rng): string {
  switch (rng.int(0, 9)) {
    case 0: return String.fromCharCode(rng.int(0, 31));
    case 1: return `\x1b[${Array.from({ length: rng.int(0, 4) }, () => param(rng)).join(';')}${rng.pick([...CSI_FINALS])}`;
    case 2: return `\x1b[?${rng.pick(PRIVATE_MODES)}${rng.pick(['h', 'l'])}`;
    case 3: return `\x1b[${rng.int(0, 107)};${rng.int(0, 107)};${rng.pick(['38;5;' + rng.int(0, 300), '48;2;1;2;3', '4:3', '58;5;1'])}m`;
    case 4: return `\x1b]${rng.pick([0, 1, 2, 4, 7, 8, 10, 11, 12, 52, 104, 133, 633, 1337])};${randomString(rng, 80)}${rng.pick(['\x07', '\x1b\\', ''])}`;
    case 5: return `\x1bP${randomString(rng, 40)}\x1b\\`;
    case 6: return `\x1b${rng.pick(['7', '8', 'c', 'D', 'E', 'H', 'M', 'N', 'O', '=', '>', '(0', '(B', '#8', '%G', '_', '^'])}`;
    case 7: return `\x1b[${param(rng)};${param(rng)};${param(rng)}t`;
    case 8: return String.fromCharCode(rng.int(0x80, 0x9f));
    default: return `\x1b[${param(rng)}${rng.pick(['b', '@', 'L', 'M', 'P', 'X', 'S', 'T'])}`;
  }
}

/** What a person (or a broken client) might type: text, sequences, wide and combining characters, lone surrogates. */
export function typedData(rng: Rng): string {
  if (rng.chance(OVERSIZE_PASTE_CHANCE)) return 'y'.repeat(rng.int(1024 * 1024 - 10, 1024 * 1024 + 10));
  let s = '';
  const parts = rng.size(60) + 1;
  for (let i = 0; i < parts && s.length < DATA_MAX_CHARS; i++) {
    switch (rng.int(0, 4)) {
      case 0: case 1: s += controlSequence(rng); break;
      case 2: s += randomString(rng, 40); break;
      case 3: s += rng.pick(['\r', '\n', '\r\n', '\t', '\x7f', '\b', '中文', 'e\u0301', '\u200d', '🏳️‍🌈', '\ud83d', '\u0000']); break;
      default: s += 'x'.repeat(rng.size(300));
    }
  }
  return s.slice(0, DATA_MAX_CHARS);
}

function dim(rng: Rng, min: number, max: number): unknown {
  const r = rng.next();
  if (r < 0.7) return rng.int(min, max);
  if (r < 0.9) return rng.pick([min - 1, max + 1, 0, -1, 2 ** 32, 1.5, NaN]);
  return randomValue(rng);
}

/** A terminal message of the holder's: mostly typing, then resizes, acks and repaints. */
export function terminalMessage(rng: Rng, term: number): Record<string, unknown> {
  const id = rng.chance(0.9) ? term : randomNumber(rng);
  const r = rng.next();
  if (r < 0.7) return { t: 'term_input', term: id, data: typedData(rng) };
  if (r < 0.82) return { t: 'term_resize', term: id, cols: dim(rng, TERM_COLS_MIN, TERM_COLS_MAX), rows: dim(rng, TERM_ROWS_MIN, TERM_ROWS_MAX) };
  if (r < 0.92) return { t: 'term_ack', term: id, bytes: rng.chance(0.8) ? rng.int(0, 1 << 20) : randomNumber(rng) };
  if (r < 0.97) return { t: 'term_repaint', term: id };
  return { t: 'term_control', term: id, take: true };
}

/** One input on the holder's socket. */
export function terminalInput(rng: Rng, term: number): SocketInput {
  const msg = terminalMessage(rng, term);
  const r = rng.next();
  if (r < 0.8) return { label: `${kindName(msg.t)}: well formed`, bytes: encodeControl(msg as never) };
  if (r < 0.9) {
    const bad = wrongType(rng, msg);
    return { label: `${kindName(msg.t)}: a field of a wrong type`, bytes: encodeControl(bad as never) };
  }
  return { label: `${kindName(msg.t)}: mutated on the wire`, bytes: mutate(rng, encodeControl(msg as never)) };
}
