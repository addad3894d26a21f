/**
 * Runs once around the whole suite: builds forge (the end-to-end tests start the built server)
 * and, at the end, asserts that no Chromium or Xvfb the suite started is still alive.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { survivors, RUN_TAG_VAR } from './helpers/processes.js';

export async function setup(): Promise<void> {
  // Tag this run: servers and hosts the tests start inherit it (see helpers/processes.ts).
  process.env[RUN_TAG_VAR] ??= randomUUID();
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}

export async function teardown(): Promise<void> {
  await new Promise((r) => setTimeout(r, 500));
  const left = survivors();
  if (left.length) {
    throw new Error(`processes outlived the test suite (orphans):\n${left.map((p) => `  ${p.pid} ${p.cmd}`).join('\n')}`);
  }
}
