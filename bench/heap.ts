/**
 * `./forge bench heap [--warmup N] [--navigations N] [--json]`: what the server's own heap keeps
 * per navigation. One agent drives a real `forge serve` through the repository's bench pages
 * (a snapshot every third page); after `--warmup` navigations and again `--navigations` later,
 * the server's heap is collected and snapshotted through its inspector, and the two snapshots are
 * compared by constructor. A server that keeps something per navigation shows it here by name,
 * with its count (one per navigation is a leak's signature).
 *
 * The warm-up matters: the browser driver keeps each finished request's records up to its bound
 * (PLAYWRIGHT_RECORDS_PER_KIND_MAX), so a run that ends below that bound measures the bound
 * filling, not a leak. The default warm-up passes it.
 *
 * Last line of --json: {"warmup", "navigations", "heap_mb_before", "heap_mb_after",
 * "bytes_per_navigation", "top": [{"name", "count", "bytes"}]}.
 */
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { agentClient, startServer } from './fuzz/server.js';
import { servePages } from './fuzz/scene.js';
import { growth, Inspector, inspectorUrl } from './fuzz/inspector.js';
import { PLAYWRIGHT_RECORDS_PER_KIND_MAX } from '../src/main/browser/playwright-records.js';

/** Navigations before the first snapshot: past the driver's bound on its records, and JIT warm. */
const WARMUP_DEFAULT = PLAYWRIGHT_RECORDS_PER_KIND_MAX + 100;
/** Navigations between the snapshots: enough that one object kept per navigation stands out. */
const NAVIGATIONS_DEFAULT = 600;
/** Constructors shown, by growth. */
const TOP = 15;
const SEAT = 'default/heap/lead';

const say = (s: string): void => { process.stderr.write(`heap: ${s}\n`); };

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { warmup: { type: 'string' }, navigations: { type: 'string' }, json: { type: 'boolean' } } });
  const warmup = Number(values.warmup ?? WARMUP_DEFAULT);
  const navigations = Number(values.navigations ?? NAVIGATIONS_DEFAULT);
  if (!Number.isInteger(warmup) || warmup < 0 || !Number.isInteger(navigations) || navigations < 1) throw new Error('--warmup and --navigations take whole numbers (navigations at least 1)');
  const server = await startServer({ shell: 'echo', stopOnSignal: true, inspect: true });
  const pages = await servePages();
  try {
    const url = inspectorUrl(server);
    const names = readdirSync('bench/pages').filter((f) => f.endsWith('.html'));
    const agent = await agentClient(server, SEAT);
    let errors = 0;
    const navigate = async (i: number): Promise<void> => {
      const r = await agent.callTool({ name: 'browser_navigate', arguments: { url: `${pages.base}/${names[i % names.length]}` } });
      if (r.isError) errors++;
      if (i % 3 === 0) await agent.callTool({ name: 'browser_snapshot', arguments: {} });
    };
    say(`server pid ${server.pid}; ${warmup} navigations to warm up, then ${navigations} between the snapshots`);
    for (let i = 0; i < warmup; i++) await navigate(i);
    const inspector = await Inspector.open(url);
    const before = await inspector.snapshot();
    say(`heap after the warm-up: ${(before.total / 1e6).toFixed(1)} MB`);
    for (let i = warmup; i < warmup + navigations; i++) await navigate(i);
    const after = await inspector.snapshot();
    say(`heap after ${navigations} more: ${(after.total / 1e6).toFixed(1)} MB; ${errors} navigations failed`);
    inspector.close();
    await agent.close();
    const top = growth(before, after, TOP);
    const perNav = Math.round((after.total - before.total) / navigations);
    if (values.json) {
      console.log(JSON.stringify({ warmup, navigations, errors, heap_mb_before: Math.round(before.total / 1e5) / 10, heap_mb_after: Math.round(after.total / 1e5) / 10, bytes_per_navigation: perNav, top }));
    } else {
      console.table(top);
      console.log(`heap growth: ${perNav} bytes per navigation over ${navigations}`);
    }
    if (errors) process.exitCode = 1;
  } finally {
    pages.server.close();
    await server.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench heap failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
