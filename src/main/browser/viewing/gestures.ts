/**
 * A controller's gestures, one after another (each already checked field by field at the door,
 * viewer-messages-schema.ts): queued in the order they came with the newest move (or wheel)
 * only, bounded, and never held by an acknowledgement the page does not send.
 */
import type { ClientMessageOf, InputEvent } from '../../../shared/protocol.js';
import { ForgeError } from '../../../shared/errors.js';
import { OneByOne } from '../../../shared/one-by-one.js';

export type InputMessage = ClientMessageOf<'input'>;

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
function addWheel(a: InputEvent, b: InputEvent): InputEvent {
  if (a.type !== 'wheel' || b.type !== 'wheel') return b;
  return { ...b, dx: a.dx + b.dx, dy: a.dy + b.dy };
}

/** A move or wheel waiting in the queue, not started: a newer one of the same kind takes its place. */
interface PendingGesture { kind: 'move' | 'wheel'; m: InputMessage; started: boolean; buttons?: number; modifiers?: number; done: Promise<void> }

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
    const ev = m.ev;
    const kind = ev.type === 'mouse' && ev.action === 'move' ? 'move' : ev.type === 'wheel' ? 'wheel' : undefined;
    const buttons = ev.type === 'mouse' ? ev.buttons : undefined;
    const modifiers = ev.type === 'text' ? undefined : ev.modifiers;
    const p = this.pending;
    if (kind && p && !p.started && p.kind === kind && p.buttons === buttons && p.modifiers === modifiers) {
      p.m = kind === 'wheel' ? { ...m, ev: addWheel(p.m.ev, m.ev) } : m;
      return p.done;
    }
    if (this.queued >= INPUT_BACKLOG_MAX) {
      return Promise.reject(new ForgeError('input_backlog', `the page is ${this.queued} gestures behind your input; this one was dropped (wait for the page to catch up)`));
    }
    const entry: PendingGesture | undefined = kind ? { kind, m, started: false, buttons, modifiers, done: Promise.resolve() } : undefined;
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
