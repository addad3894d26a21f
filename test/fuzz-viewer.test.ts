import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ForgeServer } from '../bench/fuzz/server.js';
import { makeScene, type Scene } from '../bench/fuzz/scene.js';
import { fuzzViewer } from '../bench/fuzz/viewer-target.js';
import { RSS_GROWTH_MAX_MB } from '../bench/fuzz/result.js';

/** A fixed seed: a failure here replays with `./forge bench fuzz --target viewer --seed 7301 --only INDEX`. */
const SEED = 7301;
const INPUTS = 3000;

let server: ForgeServer;
let scene: Scene;

beforeAll(async () => {
  server = await startServer({ shell: 'echo' });
  scene = await makeScene(server, { browser: true });
}, 120_000);

afterAll(async () => {
  await scene?.close();
  await server?.stop();
});

describe('the viewer socket under seeded random and mutated input', () => {
  it('answers every input in words or not at all, closes only with a code and words, keeps answering pings and tools/list, and stays within its memory bound', async () => {
    const r = await fuzzViewer({ server, prober: scene.prober, seed: SEED, inputs: INPUTS, scene: scene.viewer });
    expect(r.faults).toEqual([]);
    expect(r.crashes).toBe(0);
    expect(r.inputs).toBe(INPUTS);
    expect(r.refusals).toBeGreaterThan(INPUTS / 4);
    expect(r.rss_mb_after - r.rss_mb_before).toBeLessThan(RSS_GROWTH_MAX_MB);
    expect(server.exited()).toBeUndefined();
  }, 300_000);
});
