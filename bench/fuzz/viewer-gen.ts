/**
 * Inputs for the viewer socket: every message kind a client really sends (protocol.ts, the
 * browser, terminal, hand-off and file-chooser handlers), well formed, with wrong types in a
 * field, with junk fields, mutated or truncated on the wire, as text frames, as random bytes,
 * and at the edge of the 16 MiB bound.
 */
import { encodeControl } from '../../src/shared/protocol.js';
import { TERM_COLS_MAX, TERM_ROWS_MAX } from '../../src/shared/terminal.js';
import type { Rng } from './prng.js';
import { hugeValue, mutate, nestedMsgpack, randomNumber, randomString, randomValue, setOwn, HUGE_NESTING_MAX_DEPTH } from './values.js';

/** One frame a fuzzer sends: binary bytes or a text frame, with words saying what it is for a failure's report. */
export interface SocketInput { label: string; bytes?: Uint8Array; text?: string }

/** What the generator may name so that some messages reach a live tab, terminal or hand-off. */
export interface ViewerScene {
  seat: string;
  pageId?: string;
  tab?: number;
  term?: number;
  handoff?: string;
}

/** Chance an input is at the edge of the bound (megabytes, deep nesting): rare, since each costs the server real work. */
const HUGE_CHANCE = 1 / 1500;

const KEYS = ['Enter', 'Tab', 'Escape', 'Backspace', 'ArrowLeft', 'ArrowDown', 'a', 'A', 'c', 'x', 'v', ' ', 'F5', 'Delete', 'Home', 'Unidentified', 'Dead', 'Process'];
const BUTTONS = ['left', 'middle', 'right', 'none'];

function point(rng: Rng): number {
  return rng.chance(0.9) ? rng.int(0, 1400) : randomNumber(rng);
}

function inputEvent(rng: Rng): Record<string, unknown> {
  switch (rng.int(0, 3)) {
    case 0: return { type: 'mouse', action: rng.pick(['down', 'up', 'move']), x: point(rng), y: point(rng), button: rng.pick(BUTTONS), buttons: rng.int(0, 7), clickCount: rng.int(0, 3), modifiers: rng.int(0, 15) };
    case 1: return { type: 'wheel', x: point(rng), y: point(rng), dx: rng.int(-500, 500), dy: rng.int(-500, 500), modifiers: rng.int(0, 15) };
    case 2: return { type: 'key', action: rng.pick(['down', 'up']), key: rng.pick(KEYS), code: rng.chance(0.5) ? 'KeyA' : undefined, modifiers: rng.chance(0.8) ? 0 : rng.int(0, 15) };
    default: return { type: 'text', text: randomString(rng, 40) };
  }
}

/** A plausible message of each kind, naming the scene's tab, terminal and hand-off where the kind takes them. */
export const VIEWER_KINDS: ReadonlyArray<(rng: Rng, s: ViewerScene) => Record<string, unknown>> = [
  (rng) => ({ t: 'hello', token: randomString(rng) }),
  (rng, s) => ({ t: 'tabs', seat: rng.chance(0.7) ? s.seat : randomString(rng) }),
  (rng, s) => ({ t: 'attach', ...(rng.chance(0.5) && s.pageId ? { pageId: s.pageId } : rng.chance(0.5) ? { tab: s.tab ?? 1 } : {}), w: rng.int(1, 2000), h: rng.int(1, 1500) }),
  () => ({ t: 'detach' }),
  (rng) => ({ t: 'resize', w: rng.int(1, 4000), h: rng.int(1, 3000) }),
  (rng) => ({ t: 'control', take: rng.chance(0.7) }),
  (rng) => ({ t: 'nav', dir: rng.pick(['back', 'forward']) }),
  (rng) => ({ t: 'input', ev: inputEvent(rng) }),
  (rng) => ({ t: 'ping', id: rng.int(0, 1e6) }),
  () => ({ t: 'keyframe' }),
  (rng) => ({ t: 'file_chooser_answer', chooser: `fc-${rng.int(0, 99)}`, ...(rng.chance(0.5) ? { dismiss: true, picked: { files: rng.int(0, 40), bytes: rng.int(0, 2 ** 30) } } : { files: [{ name: randomString(rng, 20), type: 'text/plain', data: 'aGVsbG8=' }] }) }),
  () => ({ t: 'handoffs' }),
  () => ({ t: 'heartbeat' }),
  (rng, s) => ({ t: 'thumbs', pageIds: rng.chance(0.7) && s.pageId ? [s.pageId] : [randomString(rng)] }),
  (rng, s) => ({ t: 'answer', handoff: s.handoff ?? `ho-${rng.int(0, 99)}`, answer: rng.pick(['done', 'not_now', 'feedback']), note: randomString(rng, 30) }),
  (rng, s) => ({ t: 'term_attach', seat: rng.chance(0.8) ? s.seat : randomString(rng), cols: rng.int(2, TERM_COLS_MAX), rows: rng.int(1, TERM_ROWS_MAX) }),
  (rng, s) => ({ t: 'term_input', term: s.term ?? 1, data: randomString(rng, 40) }),
  (rng, s) => ({ t: 'term_resize', term: s.term ?? 1, cols: rng.int(2, TERM_COLS_MAX), rows: rng.int(1, TERM_ROWS_MAX) }),
  (rng, s) => ({ t: 'term_control', term: s.term ?? 1, take: rng.chance(0.5) }),
  (rng, s) => ({ t: 'term_ack', term: s.term ?? 1, bytes: rng.int(0, 1 << 20) }),
  (_rng, s) => ({ t: 'term_repaint', term: s.term ?? 1 }),
  (_rng, s) => ({ t: 'term_detach', term: s.term ?? 1 }),
  (rng, s) => ({ t: 'term_answer', term: s.term ?? 1, answer: rng.pick(['done', 'not_now', 'maybe']) }),
  (rng, s) => ({ t: 'term_start', seat: s.seat, cols: rng.int(2, 200), rows: rng.int(1, 60) }),
];

/** A message's kind for a label, whatever type its `t` was given. */
export function kindName(t: unknown): string {
  return typeof t === 'string' ? t.slice(0, 30) : `(t of type ${t === null ? 'null' : typeof t})`;
}

/** One field of a message given a value of any type (the `t` field included). */
export function wrongType(rng: Rng, msg: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(msg);
  const k = rng.pick(keys);
  const v = msg[k];
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) && rng.chance(0.5)) {
    return { ...msg, [k]: wrongType(rng, v as Record<string, unknown>) };
  }
  return { ...msg, [k]: randomValue(rng) };
}

function encode(msg: unknown): Uint8Array {
  return encodeControl(msg as never);
}

/** A message of a random kind, sometimes shaped wrong; `id` is left for the sender. */
export function viewerMessage(rng: Rng, scene: ViewerScene, kinds = VIEWER_KINDS): { label: string; msg: Record<string, unknown> } {
  let msg = rng.pick(kinds)(rng, scene);
  let how = 'well formed';
  const r = rng.next();
  if (r < 0.3) { msg = wrongType(rng, msg); how = 'a field of a wrong type'; } else if (r < 0.4) {
    for (let i = rng.int(1, 3); i > 0; i--) setOwn(msg, randomString(rng, 10), randomValue(rng));
    how = 'junk fields';
  } else if (r < 0.45) {
    const keys = Object.keys(msg).filter((k) => k !== 't');
    if (keys.length) delete msg[rng.pick(keys)];
    how = 'a field missing';
  }
  return { label: `${kindName(msg.t)}: ${how}`, msg };
}

/** One input for an authenticated viewer socket. */
export function viewerInput(rng: Rng, scene: ViewerScene, kinds = VIEWER_KINDS): SocketInput {
  if (rng.chance(HUGE_CHANCE)) return hugeInput(rng, scene, kinds);
  const r = rng.next();
  if (r < 0.55) {
    const { label, msg } = viewerMessage(rng, scene, kinds);
    return { label, bytes: encode(msg) };
  }
  if (r < 0.8) {
    const { label, msg } = viewerMessage(rng, scene, kinds);
    return { label: `${label}, mutated on the wire`, bytes: mutate(rng, encode(msg)) };
  }
  if (r < 0.9) return { label: 'random bytes', bytes: rng.bytes(rng.size(rng.chance(0.9) ? 64 : 65_536)) };
  if (r < 0.95) return { label: 'a text frame', text: rng.chance(0.5) ? randomString(rng, 200) : JSON.stringify(viewerMessage(rng, scene, kinds).msg) };
  return { label: 'a map with no usable t', bytes: encode(rng.chance(0.5) ? { t: randomValue(rng) } : randomValue(rng)) };
}

/** A message at the edge of the bound: a huge field, a huge array, or nesting far deeper than any real message. */
export function hugeInput(rng: Rng, scene: ViewerScene, kinds = VIEWER_KINDS): SocketInput {
  const base = rng.pick(kinds)(rng, scene);
  if (rng.chance(0.4)) {
    const depth = rng.int(1, HUGE_NESTING_MAX_DEPTH);
    const asMap = rng.chance(0.5);
    return { label: `${kindName(base.t)} nested ${depth} deep in ${asMap ? 'maps' : 'arrays'}`, bytes: nestedMsgpack(kindName(base.t), depth, asMap) };
  }
  const keys = Object.keys(base).filter((k) => k !== 't');
  const k = keys.length && rng.chance(0.7) ? rng.pick(keys) : 'huge';
  const v = hugeValue(rng);
  const bytes = encode({ ...base, [k]: v });
  return { label: `${kindName(base.t)} with a huge ${typeof v === 'string' ? `string (${v.length} chars)` : `array (${(v as unknown[]).length} items)`} in ${k}`, bytes };
}

/** An input for a socket that has not yet sent its token: anything at all, a hello with a wrong token, or text. */
export function unauthenticatedInput(rng: Rng, scene: ViewerScene): SocketInput {
  const r = rng.next();
  if (r < 0.3) return { label: 'a hello with a wrong token', bytes: encode({ t: 'hello', token: rng.chance(0.5) ? randomString(rng) : randomValue(rng) }) };
  if (r < 0.4) return { label: 'an oversized first message', bytes: rng.bytes(rng.int(4097, 70_000)) };
  if (r < 0.5) return { label: 'a text hello', text: JSON.stringify({ t: 'hello', token: randomString(rng) }) };
  return viewerInput(rng, scene);
}
