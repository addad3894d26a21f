/**
 * A controller's gestures, one after another: checked field by field, queued in the order they
 * came with the newest move (or wheel) only, bounded, and never held by an acknowledgement the
 * page does not send.
 */
import type { ClientMessage, InputEvent } from '../../../shared/protocol.js';
import { ForgeError } from '../../../shared/errors.js';
import { OneByOne } from '../../../shared/one-by-one.js';

export type InputMessage = Extract<ClientMessage, { t: 'input' }>;

/** Gestures that may wait for a slow page per viewer: past it the page is far behind the person, and more would only grow the server. */
export const INPUT_BACKLOG_MAX = 256;

/**
 * How long a gesture may wait for the page's acknowledgement, ms. The browser answers a dispatched
 * wheel or press once the renderer has handled it, and never when the renderer is replaced under
 * it (a navigation swaps the page while a wheel is in flight): without a bound, one such gesture
 * held every later one of the person's forever. Past it the queue moves on; the gesture went to
 * the page that was there, or went with it.
 */
export const INPUT_ACK_DEADLINE_MS = 2_000;

/** Resolves when `p` does, or after INPUT_ACK_DEADLINE_MS (calling `late`): a lost acknowledgement never holds the queue. */
export function acked(p: Promise<void>, late: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => { timer = setTimeout(() => { late(); resolve(); }, INPUT_ACK_DEADLINE_MS); });
  return Promise.race([p.finally(() => clearTimeout(timer)), deadline]);
}

/** Two wheels as one: the later one's point, both distances. */
function addWheel(a: unknown, b: unknown): InputMessage['ev'] {
  const x = a as { dx?: unknown; dy?: unknown };
  const y = b as { dx?: unknown; dy?: unknown };
  const num = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
  return { ...(b as object), dx: num(x.dx) + num(y.dx), dy: num(x.dy) + num(y.dy) } as InputMessage['ev'];
}

/** A move or wheel waiting in the queue, not started: a newer one of the same kind takes its place. */
interface PendingGesture { kind: 'move' | 'wheel'; m: InputMessage; started: boolean; buttons: unknown; modifiers: unknown; done: Promise<void> }

/** One viewer's gestures, run one after another by `run`. */
export class GestureQueue {
  private readonly queue = new OneByOne();
  private pending?: PendingGesture;
  private queued = 0;

  constructor(private readonly run: (m: InputMessage) => Promise<void>) {}

  /**
   * A gesture joins the queue; a move (or a wheel) that finds the move (or wheel) before it still
   * waiting takes its place instead (a wheel adds its distance), so a page slower than the
   * person's hand never builds a backlog of stale positions: newest position only, as frames are
   * newest frame only. Presses, keys and text always queue, in order; past INPUT_BACKLOG_MAX
   * waiting the gesture is refused in words.
   */
  push(m: InputMessage): Promise<void> {
    const ev = (typeof m.ev === 'object' && m.ev !== null ? m.ev : {}) as { type?: unknown; action?: unknown; buttons?: unknown; modifiers?: unknown };
    const kind = ev.type === 'mouse' && ev.action === 'move' ? 'move' : ev.type === 'wheel' ? 'wheel' : undefined;
    const p = this.pending;
    if (kind && p && !p.started && p.kind === kind && p.buttons === ev.buttons && p.modifiers === ev.modifiers) {
      p.m = kind === 'wheel' ? { ...m, ev: addWheel(p.m.ev, m.ev) } : m;
      return p.done;
    }
    if (this.queued >= INPUT_BACKLOG_MAX) {
      return Promise.reject(new ForgeError('input_backlog', `the page is ${this.queued} gestures behind your input; this one was dropped (wait for the page to catch up)`));
    }
    const entry: PendingGesture | undefined = kind ? { kind, m, started: false, buttons: ev.buttons, modifiers: ev.modifiers, done: Promise.resolve() } : undefined;
    this.pending = entry;
    this.queued++;
    const done = this.inOrder(() => {
      this.queued--;
      if (entry) { entry.started = true; if (this.pending === entry) this.pending = undefined; }
      return this.run(entry ? entry.m : m);
    });
    if (entry) entry.done = done;
    return done;
  }

  /**
   * Runs the gestures in the order they came: one may take a step more than another (a press
   * starts drag interception first), and a move must never pass its press.
   */
  private inOrder(fn: () => Promise<void>): Promise<void> {
    return this.queue.run(fn);
  }
}

/** An input message's event, checked field by field: a malformed one is refused in words. */
export function checkInput(ev: unknown): InputEvent {
  const bad = (why: string): ForgeError => new ForgeError('bad_request', `the input event was refused: ${why}`);
  if (typeof ev !== 'object' || ev === null) throw bad('ev must be a map');
  const e = ev as Record<string, unknown>;
  const num = (k: string): void => { if (typeof e[k] !== 'number' || !Number.isFinite(e[k])) throw bad(`${k} must be a number`); };
  switch (e.type) {
    case 'mouse':
      if (!['down', 'up', 'move'].includes(e.action as string)) throw bad('a mouse action is down, up or move');
      num('x'); num('y');
      break;
    case 'wheel': num('x'); num('y'); num('dx'); num('dy'); break;
    case 'key':
      if (!['down', 'up'].includes(e.action as string)) throw bad('a key action is down or up');
      if (typeof e.key !== 'string' || !e.key) throw bad('key must name the key');
      break;
    case 'text': if (typeof e.text !== 'string') throw bad('text must be a string'); break;
    default: throw bad('type must be mouse, wheel, key or text');
  }
  return e as unknown as InputEvent;
}
