/**
 * The server under fuzz or soak: a real `forge serve` in a temporary state dir, its RSS read
 * from /proc, and the two probes that say it still answers (a viewer's ping, an agent's tools/list).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeControl, encodeControl } from '../../src/shared/protocol.js';

/** Bound on the server's start, ms: the relay listening and server.json written. */
const START_TIMEOUT_MS = 30_000;
/** Bound on one probe's answer, ms: far past a healthy server's few ms, so a server that stopped answering is named hung. */
export const PROBE_TIMEOUT_MS = 20_000;
/** Grace for the server to stop on SIGTERM before it is killed, ms: above its own 5 s shutdown bound. */
const STOP_GRACE_MS = 10_000;

/**
 * A terminal "shell" that runs nothing: the PTY in raw mode with no signals, and cat writing back
 * whatever is typed. Random typing reaches the PTY and the screen model, and no random command line
 * can run. It draws a prompt first: forge types an agent's first command once a shell without marks
 * has drawn something and gone quiet, else only after its 15 s startup bound.
 */
const ECHO_SHELL = '#!/bin/sh\nstty raw -echo -isig -ixon 2>/dev/null\nprintf \'echo> \'\nexec cat\n';

export interface ForgeServer {
  pid: number;
  port: number;
  viewerToken: string;
  agentToken: string;
  mcpUrl: string;
  stateDir: string;
  proc: ChildProcess;
  /** Why the process is gone (its exit code or signal), or undefined while it runs. */
  exited: () => string | undefined;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * `shell: 'echo'`: the terminal runs ECHO_SHELL (the fuzzers); `'bash'`: a real shell (the soak).
 * `stopOnSignal`: a driver run from a terminal stops the server when it is interrupted or killed.
 * `inspect`: the server opens its V8 inspector on a free loopback port (see inspector.ts).
 */
export async function startServer(opts: { shell: 'echo' | 'bash'; logLevel?: string; stopOnSignal?: boolean; inspect?: boolean }): Promise<ForgeServer> {
  const dir = mkdtempSync(join(tmpdir(), 'forge-fuzz-'));
  const stateDir = join(dir, 'state');
  let shell = '/bin/bash';
  if (opts.shell === 'echo') {
    shell = join(dir, 'echo-shell');
    writeFileSync(shell, ECHO_SHELL);
    chmodSync(shell, 0o755);
  }
  writeFileSync(join(dir, 'forge.toml'), `[terminal]\nshell = "${shell}"\n`);
  const proc = spawn(process.execPath, ['dist/src/main/cli.js', 'serve', '--state', stateDir, '--port', '0', '--config', join(dir, 'forge.toml')], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORGE_LOG_LEVEL: opts.logLevel ?? 'warn', HOME: dir, ...(opts.inspect ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim() } : {}) },
  });
  let out = '';
  const keep = (d: Buffer): void => { out = (out + d.toString()).slice(-200_000); };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!existsSync(join(stateDir, 'server.json'))) {
    if (proc.exitCode !== null) throw new Error(`forge serve exited (${proc.exitCode}):\n${out}`);
    if (Date.now() > deadline) { proc.kill('SIGKILL'); throw new Error(`forge serve did not come up within ${START_TIMEOUT_MS} ms:\n${out}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  const info = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as { pid: number; port: number; mcp_url: string; token: string; viewer_token: string };
  const exited = (): string | undefined => proc.exitCode !== null ? `exit code ${proc.exitCode}` : proc.signalCode !== null ? `signal ${proc.signalCode}` : undefined;
  // The driver stopped with Ctrl-C or a kill: the server (and through it its browser hosts and
  // shells) stops with it, never left running with nobody to end it.
  const onSignal = (signal: NodeJS.Signals): void => {
    process.stderr.write(`${signal}: stopping the server under test (pid ${proc.pid})\n`);
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  const onExit = (): void => { if (exited() === undefined) proc.kill('SIGTERM'); };
  if (opts.stopOnSignal) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.once('exit', onExit);
  }
  const stop = async (): Promise<void> => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', onExit);
    if (exited() === undefined) {
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
      await new Promise((r) => (exited() !== undefined ? r(null) : proc.once('exit', r)));
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  return { pid: proc.pid!, port: info.port, viewerToken: info.viewer_token, agentToken: info.token, mcpUrl: info.mcp_url, stateDir, proc, exited, output: () => out, stop };
}

/** The server's resident memory, MB, from /proc/<pid>/status (0 once it is gone). */
export function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch { return 0; }
}

/** How often the settled RSS is sampled, ms. */
const RSS_SETTLE_SAMPLE_MS = 500;
/** How long the RSS may take to settle after a run's last input, ms: room for two of V8's idle collections (below). */
const RSS_SETTLE_MAX_MS = 30_000;
/**
 * The RSS counts as settled once its lowest sample has not fallen for this long, ms: V8's memory
 * reducer collects and shrinks a heap that went quiet some 8 s after it did, not before.
 */
const RSS_SETTLED_FOR_MS = 10_000;

/**
 * The server's RSS once it has settled after a run, MB: the lowest sample until it stops falling.
 * Read right after the last input it holds that input's garbage too (a 15 MiB string decoded on
 * two threads, not yet collected), which is no growth: what stays is what a leak or the allocator keeps.
 */
export async function settledRssMb(pid: number): Promise<number> {
  let lowest = rssMb(pid);
  let lowestAt = Date.now();
  const end = Date.now() + RSS_SETTLE_MAX_MS;
  while (Date.now() < end && Date.now() - lowestAt < RSS_SETTLED_FOR_MS) {
    await new Promise((r) => setTimeout(r, RSS_SETTLE_SAMPLE_MS));
    const now = rssMb(pid);
    if (now < lowest) { lowest = now; lowestAt = Date.now(); }
  }
  return lowest;
}

/** An MCP client of the server for `seat`. */
export async function agentClient(server: ForgeServer, seat: string): Promise<Client> {
  const url = new URL(server.mcpUrl);
  url.searchParams.set('seat', seat);
  const client = new Client({ name: 'forge-fuzz', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${server.agentToken}` } } }));
  return client;
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { t = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms); })]).finally(() => clearTimeout(t));
}

/** A fresh viewer socket's ping answered with its pong. */
export async function pingProbe(server: ForgeServer): Promise<void> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.viewerToken}`);
  try {
    await within(new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('close', (code, why) => reject(new Error(`the probe socket closed (${code} ${why.toString()})`)));
      ws.once('open', () => ws.send(encodeControl({ t: 'ping', id: 1 })));
      ws.on('message', (data: Buffer) => {
        const d = decodeControl(new Uint8Array(data));
        if (d.ok && d.msg.t === 'pong') resolve();
      });
    }), PROBE_TIMEOUT_MS, 'a viewer ping');
  } finally {
    ws.removeAllListeners('close');
    ws.on('error', () => undefined);
    ws.terminate();
  }
}

/** The probes: a viewer ping, an agent's tools/list and terminal__read (on `client`, the prober's own session). */
export async function probe(server: ForgeServer, client: Client): Promise<string | undefined> {
  const gone = server.exited();
  if (gone) return `the server process ended (${gone})`;
  try {
    await pingProbe(server);
    const { tools } = await within(client.listTools(), PROBE_TIMEOUT_MS, 'tools/list');
    if (!tools.length) return 'tools/list answered with no tools';
    // The terminal worker answers too: the prober's own seat's screen, read.
    await within(client.callTool({ name: 'terminal__read', arguments: {} }), PROBE_TIMEOUT_MS, 'terminal__read');
  } catch (e) {
    const now = server.exited();
    return now ? `the server process ended (${now})` : `the server stopped answering: ${(e as Error).message}`;
  }
  return undefined;
}
