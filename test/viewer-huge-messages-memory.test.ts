/**
 * A viewer's huge messages leave the server's allocator holding nothing once they are answered:
 * each one's buffers (the socket's, a copy to the main thread) are given back to the system, so
 * a run of them does not keep a message's size resident in every thread that touched it.
 */
import { describe, expect } from 'vitest';
import type { RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { CONTROL_MESSAGE_MAX_BYTES, SOCKET_INBOUND_MAX_BYTES } from '../src/shared/limits.js';

const it = forgeTest();

/** Huge messages sent: enough for each thread on the way in to have handled several. */
const HUGE_MESSAGES = 12;
/** Bytes of the largest one: near the socket's bound, as a fuzzer's or an attacker's are. */
const HUGE_BYTES = SOCKET_INBOUND_MAX_BYTES - 64 * 1024;
/**
 * What the arenas may take from the system beyond what they held before the messages, bytes:
 * a few of the small blocks the answers need; one huge message kept resident is 15 MiB.
 */
const ARENA_GROWTH_MAX_BYTES = 8 * 1024 * 1024;
/** How long /metrics takes to show the main thread's gauges after a change, ms (they are pushed every second). */
const GAUGES_SETTLE_MS = 2_500;

/** A gauge of the server's own process, from its /metrics. */
async function gauge(forge: RunningServer, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } })).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`/metrics has no ${name}`);
  return Number(m[1]);
}

describe('a viewer that sends huge messages', () => {
  it('is answered in words for each, and leaves the allocator\'s arenas where they were', async ({ forge, viewer: v }) => {
    v.send({ t: 'ping', id: 0 });
    await v.next('pong');
    await new Promise((r) => setTimeout(r, GAUGES_SETTLE_MS));
    const before = await gauge(forge, 'forge_process_malloc_arena_bytes');
    let largestAnswer = 0;
    let smallestAttach = Infinity;
    for (let i = 0; i < HUGE_MESSAGES; i++) {
      // Sizes differ, as a fuzzer's do; a file-chooser answer may be this big and crosses to the main thread,
      // an attach (bigger still) is refused at the door.
      const size = (i % 2 === 0 ? HUGE_BYTES / 2 : HUGE_BYTES) - i * 256 * 1024;
      if (i % 2 === 0) largestAnswer = Math.max(largestAnswer, size); else smallestAttach = Math.min(smallestAttach, size);
      if (i % 2 === 0) v.send({ t: 'file_chooser_answer', chooser: `fc-${i}`, files: [{ name: 'big.bin', data: 'A'.repeat(size) }], id: i });
      else v.send({ t: 'attach', pageId: 'p'.repeat(size), w: 800, h: 600, id: i });
      const e = await v.next('error', (m) => m.id === i, 60_000);
      expect(String(e.message)).not.toBe('');
      if (i % 2 === 1) expect(e.message).toBe(`a "attach" message is limited to ${CONTROL_MESSAGE_MAX_BYTES / 1024} KiB; it was ignored`);
    }
    v.send({ t: 'ping', id: 99 });
    await v.next('pong', (m) => m.id === 99);
    await new Promise((r) => setTimeout(r, GAUGES_SETTLE_MS));
    const after = await gauge(forge, 'forge_process_malloc_arena_bytes');
    expect(after - before).toBeLessThan(ARENA_GROWTH_MAX_BYTES);
    // What crossed to the main thread is bounded by kind: the file-chooser answers did, no attach did.
    const crossed = await gauge(forge, 'forge_relay_message_bytes_max');
    expect(crossed).toBeGreaterThanOrEqual(largestAnswer);
    expect(crossed).toBeLessThan(smallestAttach);
  }, 180_000);
});
