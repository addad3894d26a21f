/**
 * A viewer message nested thousands of levels deep (a few KB on the wire) is refused in words at
 * the door, and the server goes on: before, such a message decoded fine, then exhausted the stack
 * as it was handed from the relay to the main thread, and the relay thread's end aborted the
 * whole process (every viewer and agent with it).
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { openViewer } from './helpers/viewer.js';
import { CONTROL_NESTING_MAX } from '../src/shared/limits.js';

const it = forgeTest();

/** `{t: 'tabs', deep: [[[…0…]]]}` with `depth` arrays, written byte by byte as msgpack. */
function nested(depth: number): Uint8Array {
  const head = [0x82, 0xa1, 0x74, 0xa4, ...Buffer.from('tabs'), 0xa4, ...Buffer.from('deep')];
  return new Uint8Array([...head, ...new Array<number>(depth).fill(0x91), 0x00]);
}

describe('a deeply nested viewer message', () => {
  for (const depth of [CONTROL_NESTING_MAX + 1, 2_000, 3_000, 4_000]) {
    it(`${depth} levels deep is refused in words, and the server keeps serving its viewers`, async ({ forge, viewer: watcher }) => {
      const v = await openViewer(forge.info.port, forge.info.viewer_token);
      v.ws.send(nested(depth));
      const err = await v.next('error');
      expect(String(err.message)).toMatch(/nests maps and arrays at most \d+ levels deep|not valid msgpack/);
      // The same socket and another one are still answered: the relay did not end.
      v.send({ t: 'ping', id: 7 });
      expect((await v.next('pong', (m) => m.id === 7)).id).toBe(7);
      watcher.send({ t: 'ping', id: 8 });
      expect((await watcher.next('pong', (m) => m.id === 8)).id).toBe(8);
      expect(forge.proc.exitCode).toBeNull();
      await v.close();
    });
  }

  it(`a message ${CONTROL_NESTING_MAX} levels deep is still read`, async ({ viewer: v }) => {
    v.ws.send(nested(CONTROL_NESTING_MAX - 1));
    // `tabs` with a stray field is answered with the tab list, not refused.
    const tabs = await v.next('tabs');
    expect(tabs.t).toBe('tabs');
  });
});
