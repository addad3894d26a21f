/**
 * Runs once around the whole suite: builds forge (the end-to-end tests start the built server)
 * and, at the end, asserts that no Chromium or Xvfb the suite started is still alive and that
 * nothing the suite made is left in the temp dir.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { survivors, RUN_TAG_VAR } from './helpers/processes.js';

/** This run's own temp dir: tests, servers, shells and browsers the suite starts inherit it as TMPDIR. */
let runTmp = '';
/**
 * This run's own home directory, empty: the shells the suite starts read no rc file of the
 * machine's user. A machine's ~/.bashrc can run `pyenv rehash`, whose lock file a shell killed
 * while starting leaves behind, and from then on every bash waits 60 s for it: one test's kill
 * would hold every later terminal test. The suite's shells are forge's and the tests' alone.
 */
let runHome = '';

export async function setup(): Promise<void> {
  // Tag this run: servers and hosts the tests start inherit it (see helpers/processes.ts).
  process.env[RUN_TAG_VAR] ??= randomUUID();
  // A short name: a host's temp dir under a test's state dir under it must fit a Unix socket path.
  runHome = mkdtempSync(join(tmpdir(), 'forge-test-home-'));
  process.env.HOME = runHome;
  runTmp = mkdtempSync(join(tmpdir(), 'fs-'));
  process.env.TMPDIR = runTmp;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}

export async function teardown(): Promise<void> {
  await new Promise((r) => setTimeout(r, 500));
  const left = survivors();
  let leftFiles: string[] = [];
  try { leftFiles = readdirSync(runTmp); } catch { /* none made */ }
  rmSync(runTmp, { recursive: true, force: true });
  rmSync(runHome, { recursive: true, force: true });
  // vitest reports a teardown's error but keeps the run's exit code: the run fails by this.
  if (left.length || leftFiles.length) process.exitCode = 1;
  if (left.length) {
    throw new Error(`processes outlived the test suite (orphans):\n${left.map((p) => `  ${p.pid} ${p.cmd}`).join('\n')}`);
  }
  if (leftFiles.length) {
    throw new Error(`the test suite left files in its temp dir:\n${leftFiles.map((f) => `  ${f}`).join('\n')}`);
  }
}
