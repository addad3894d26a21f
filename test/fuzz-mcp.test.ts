import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ForgeServer } from '../bench/fuzz/server.js';
import { makeScene, MCP_SEAT, type Scene } from '../bench/fuzz/scene.js';
import { fuzzMcp } from '../bench/fuzz/mcp-target.js';
import { RSS_GROWTH_MAX_MB } from '../bench/fuzz/result.js';

/** A fixed seed: a failure here replays with `./forge bench fuzz --target mcp --seed 7303 --only INDEX`. */
const SEED = 7303;
/** Inputs in the suite's seeded run: each is a real MCP round trip, many of them page calls; the bench runs 10^6. */
const INPUTS = 400;

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

describe('the MCP endpoint under seeded random requests and tool calls of every listed tool', () => {
  it('answers every request, words every refusal as a JSON-RPC error or a tool result with isError, keeps refusals to a few KB, and stays within its memory bound', async () => {
    const r = await fuzzMcp({ server, prober: scene.prober, seed: SEED, inputs: INPUTS, seat: MCP_SEAT, scene: { pagesBase: scene.pagesBase } });
    expect(r.faults).toEqual([]);
    expect(r.crashes).toBe(0);
    expect(r.inputs).toBe(INPUTS);
    expect(r.refusals).toBeGreaterThan(INPUTS / 4);
    expect(r.rss_mb_after - r.rss_mb_before).toBeLessThan(RSS_GROWTH_MAX_MB);
    expect(server.exited()).toBeUndefined();
  }, 300_000);
});
