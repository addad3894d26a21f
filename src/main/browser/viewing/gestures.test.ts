import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InputEvent } from '../../../shared/protocol.js';
import { acked, GestureQueue, INPUT_ACK_DEADLINE_MS, INPUT_BACKLOG_MAX, type InputMessage } from './gestures.js';

const msg = (ev: Record<string, unknown>): InputMessage => ({ t: 'input', ev: ev as unknown as InputEvent });
const move = (x: number): InputMessage => msg({ type: 'mouse', action: 'move', x, y: 0 });
const wheel = (dy: number): InputMessage => msg({ type: 'wheel', x: 5, y: 5, dx: 0, dy });
const key = (k: string): InputMessage => msg({ type: 'key', action: 'down', key: k });

/** A page that answers only when told: each gesture it got, and a way to let the first one finish. */
function slowPage(): { ran: InputMessage[]; queue: GestureQueue; release: () => void } {
  const ran: InputMessage[] = [];
  let release = (): void => undefined;
  const held = new Promise<void>((r) => { release = r; });
  const queue = new GestureQueue(async (m) => { ran.push(m); if (ran.length === 1) await held; });
  return { ran, queue, release };
}

afterEach(() => { vi.useRealTimers(); });

describe('a controller\'s gestures', () => {
  it('moves that wait behind a slow page reach it as the newest position only', async () => {
    const { ran, queue, release } = slowPage();
    const first = queue.push(key('a'));
    const moves = [1, 2, 3, 4].map((x) => queue.push(move(x)));
    release();
    await Promise.all([first, ...moves]);
    expect(ran.map((m) => (m.ev as { x?: number; key?: string }).x ?? (m.ev as { key: string }).key)).toEqual(['a', 4]);
  });

  it('wheels that wait are one wheel with all their distance', async () => {
    const { ran, queue, release } = slowPage();
    const first = queue.push(key('a'));
    const wheels = [10, 20, 30].map((dy) => queue.push(wheel(dy)));
    release();
    await Promise.all([first, ...wheels]);
    expect(ran).toHaveLength(2);
    expect((ran[1]!.ev as { dy: number }).dy).toBe(60);
  });

  it('presses and keys are never merged and reach the page in the order they came', async () => {
    const { ran, queue, release } = slowPage();
    const all = [key('a'), move(1), key('b'), move(2), key('c')].map((m) => queue.push(m));
    release();
    await Promise.all(all);
    expect(ran.map((m) => (m.ev as { key?: string }).key ?? 'move')).toEqual(['a', 'move', 'b', 'move', 'c']);
  });

  it('past the backlog a gesture is refused in words and the ones before it still reach the page', async () => {
    const { ran, queue, release } = slowPage();
    const kept = Array.from({ length: INPUT_BACKLOG_MAX }, (_, i) => queue.push(key(`k${i}`)));
    await expect(queue.push(key('late'))).rejects.toThrow(/gestures behind your input; this one was dropped/);
    release();
    await Promise.all(kept);
    expect(ran).toHaveLength(INPUT_BACKLOG_MAX);
  });

  it('a gesture the page refused does not stop the ones after it', async () => {
    const ran: string[] = [];
    const queue = new GestureQueue(async (m) => {
      const k = (m.ev as { key: string }).key;
      if (k === 'bad') throw new Error('refused');
      ran.push(k);
    });
    const bad = queue.push(key('bad'));
    const good = queue.push(key('good'));
    await expect(bad).rejects.toThrow('refused');
    await good;
    expect(ran).toEqual(['good']);
  });

  it('a gesture whose acknowledgement never comes lets the queue move on after the deadline', async () => {
    vi.useFakeTimers();
    let late = 0;
    const never = new Promise<void>(() => undefined);
    const done = acked(never, () => { late++; });
    await vi.advanceTimersByTimeAsync(INPUT_ACK_DEADLINE_MS - 1);
    expect(late).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(late).toBe(1);
  });
});
