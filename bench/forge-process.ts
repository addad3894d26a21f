/**
 * One `forge serve` child on a free port and a fresh state dir, up when its server.json is written
 * and its MCP endpoint is announced. The tests (test/helpers/server.ts, test/fixtures.ts) and the
 * benches start forge through this one module.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerInfo } from '../src/main/state.js';

/** Bound on a server's start, ms: a cold host's first Chromium on a loaded 2-core machine fits. */
export const FORGE_START_TIMEOUT_MS = 30_000;

export interface ForgeProcessOptions {
  /** The checkout whose dist/ runs; the working directory by default. */
  root?: string;
  /** Prefix of the state dir made under the system's temp dir. */
  stateDirPrefix?: string;
  /** A forge.toml to pass as --config. */
  config?: string;
  /** A forge.toml written into the state dir for this server (wins over `config`). */
  toml?: string;
  env?: Record<string, string>;
  /** Starts the server in its own process group and stops the whole group (the benches: nothing of a run outlives it). */
  ownGroup?: boolean;
  /** Grace after SIGTERM before SIGKILL, ms; without it stop waits for the exit however long it takes. */
  stopGraceMs?: number;
  /** Keeps only the last this-many characters of the server's output (a long bench run); all of it by default. */
  outputMaxChars?: number;
  /** Removes the stopped server's state dir; rm -rf with retries by default. */
  removeStateDir?: (stateDir: string) => Promise<void> | void;
}

export interface ForgeProcess {
  info: ServerInfo;
  stateDir: string;
  proc: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

function exited(proc: ChildProcess): boolean {
  return proc.exitCode !== null || proc.signalCode !== null;
}

function waitExit(proc: ChildProcess, ms?: number): Promise<boolean> {
  if (exited(proc)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = ms === undefined ? undefined : setTimeout(() => resolve(false), ms);
    proc.once('exit', () => { clearTimeout(t); resolve(true); });
  });
}

export async function spawnForge(opts: ForgeProcessOptions = {}): Promise<ForgeProcess> {
  const root = opts.root ?? process.cwd();
  const stateDir = mkdtempSync(join(tmpdir(), opts.stateDirPrefix ?? 'forge-'));
  let config = opts.config;
  if (opts.toml !== undefined) {
    config = join(stateDir, 'forge.toml');
    writeFileSync(config, opts.toml);
  }
  const args = [join(root, 'dist/src/main/cli.js'), 'serve', '--state', stateDir, '--port', '0', ...(config ? ['--config', config] : [])];
  const proc = spawn(process.execPath, args, {
    cwd: root, detached: opts.ownGroup === true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env },
  });
  let out = '';
  const keep = (d: Buffer): void => {
    out += d.toString();
    if (opts.outputMaxChars !== undefined && out.length > opts.outputMaxChars) out = out.slice(-opts.outputMaxChars);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const signal = (s: NodeJS.Signals): void => {
    try {
      if (opts.ownGroup) process.kill(-proc.pid!, s);
      else proc.kill(s);
    } catch { /* already gone */ }
  };
  const removeStateDir = opts.removeStateDir ?? ((dir: string) => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const stop = async (): Promise<void> => {
    if (!exited(proc)) {
      signal('SIGTERM');
      if (!(await waitExit(proc, opts.stopGraceMs))) { signal('SIGKILL'); await waitExit(proc); }
    }
    await removeStateDir(stateDir);
  };
  const deadline = Date.now() + FORGE_START_TIMEOUT_MS;
  while (!(existsSync(join(stateDir, 'server.json')) && out.includes('mcp:'))) {
    if (proc.exitCode !== null) {
      await removeStateDir(stateDir);
      throw new Error(`forge serve exited (${proc.exitCode}):\n${out}`);
    }
    if (Date.now() > deadline) {
      await stop(); // a server that did not come up in time must not outlive its caller
      throw new Error(`forge serve did not come up within ${FORGE_START_TIMEOUT_MS / 1000} s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const info = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as ServerInfo;
  return { info, stateDir, proc, output: () => out, stop };
}
