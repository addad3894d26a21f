import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ForgeServer } from '../bench/fuzz/server.js';
import { makeScene, SCENE_SEAT, type Scene } from '../bench/fuzz/scene.js';
import { fuzzTerminal } from '../bench/fuzz/terminal-target.js';
import { RSS_GROWTH_MAX_MB } from '../bench/fuzz/result.js';
import { agentClient, PROBE_TIMEOUT_MS } from '../bench/fuzz/server.js';

/** A fixed seed: a failure here replays with `./forge bench fuzz --target terminal --seed 7302 --only INDEX`. */
const SEED = 7302;
const INPUTS = 3000;

let server: ForgeServer;
let scene: Scene;

beforeAll(async () => {
  server = await startServer({ shell: 'echo' });
  scene = await makeScene(server, { browser: false });
}, 120_000);

afterAll(async () => {
  await scene?.close();
  await server?.stop();
});

describe('a held terminal under seeded random typing, control sequences, resizes, acks and repaints', () => {
  it('refuses every bad message in words, takes every good one, keeps answering pings and tools/list, and stays within its memory bound', async () => {
    const r = await fuzzTerminal({ server, prober: scene.prober, seed: SEED, inputs: INPUTS, seat: SCENE_SEAT });
    expect(r.faults).toEqual([]);
    expect(r.crashes).toBe(0);
    expect(r.inputs).toBe(INPUTS);
    expect(r.rss_mb_after - r.rss_mb_before).toBeLessThan(RSS_GROWTH_MAX_MB);
    expect(server.exited()).toBeUndefined();
  }, 300_000);
});

describe('a screen model fed a delete-lines with a huge count', () => {
  // Found by the fuzz (seed 42, input 0 of the terminal target): ESC [ 99999999 M made the
  // headless screen model loop once per line of the count, and the terminal worker, shared by
  // every seat, answered nothing more; counts are now bounded before the model (pty/counts.ts).
  it('leaves every other seat\'s terminal answering', async () => {
    const fresh = await startServer({ shell: 'echo' });
    try {
      const writer = await agentClient(fresh, 'default/hang/writer');
      const reader = await agentClient(fresh, 'default/hang/reader');
      await reader.callTool({ name: 'terminal__read', arguments: {} });
      await writer.callTool({ name: 'terminal__write', arguments: { text: '\x1b[99999999M' } });
      // The echo shell writes the sequence back; the model takes it in its own time.
      await new Promise((r) => setTimeout(r, 2_000));
      const read = reader.callTool({ name: 'terminal__read', arguments: {} }, undefined, { timeout: PROBE_TIMEOUT_MS });
      await expect(read).resolves.toBeDefined();
    } finally {
      await fresh.stop();
    }
  }, 120_000);
});
