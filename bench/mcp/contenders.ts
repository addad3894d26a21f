/**
 * The two MCP servers the bench compares, each behind one `call`: forge (`serve`, reached over
 * Streamable HTTP through its relay, as an agent configured with its URL reaches it) and
 * Playwright MCP (its CLI over stdio, as an agent configured with its command line runs it),
 * both driving a headful Chromium of the same build on an Xvfb display of the same size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CHROMIUM_BINARY, SETPRIV_BINARY, XVFB_BINARY } from '../../src/main/browser/host/host.js';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from '../../src/shared/capture.js';
import { DEFAULT_PAGE_HEIGHT, DEFAULT_PAGE_WIDTH } from '../../src/shared/limits.js';
import type { ServerInfo } from '../../src/main/state.js';
import { spawnForge } from '../forge-process.js';
import { descendants, killLeftovers } from './processes.js';

/** Bound on one tool call, ms: far above any sane latency, so a hung server fails the run. */
const CALL_TIMEOUT_MS = 60_000;
/** Bound on Xvfb's start, ms. */
const START_TIMEOUT_MS = 30_000;
/** The tail of a server's output kept for an error's words, characters: a long run's log is not held whole. */
const OUTPUT_KEPT_CHARS = 20_000;
/** Grace for a server to stop on SIGTERM before its process group is killed, ms. */
const STOP_GRACE_MS = 8_000;

export interface Answer {
  text: string;
  ms: number;
  /** Image parts in the answer (a screenshot sent inline). */
  images: number;
}

export interface Contender {
  name: 'forge' | 'playwright_mcp';
  call: (tool: string, args: Record<string, unknown>) => Promise<Answer>;
  /** The argument browser_click takes the element's ref in (`ref`, or `target` in newer Playwright MCP). */
  refArg: string;
  /** The server's tools/list: names and input schemas, so steps take each server's own argument names. */
  tools: Tool[];
  /** The folder the files an answer links (Playwright MCP's snapshots) are relative to; none for forge. */
  dir?: string;
  stop: () => Promise<void>;
}

/**
 * The argument of `tool` that is one of `names` in the server's own schema: a required one first,
 * else the first the schema has. Refused in words when the schema has none of them.
 */
export function argOf(tools: Tool[], tool: string, names: string[]): string {
  const schema = tools.find((t) => t.name === tool)?.inputSchema;
  const props = Object.keys((schema?.properties ?? {}) as object);
  const got = names.find((n) => schema?.required?.includes(n)) ?? names.find((n) => props.includes(n));
  if (!got) throw new Error(`${tool} takes none of ${names.join(', ')} (its arguments: ${props.join(', ') || 'none'})`);
  return got;
}

function refArgOf(tools: Tool[]): string {
  const props = Object.keys((tools.find((t) => t.name === 'browser_click')?.inputSchema.properties ?? {}) as object);
  return props.includes('ref') ? 'ref' : props.includes('target') ? 'target' : 'ref';
}

function caller(name: string, client: Client): Contender['call'] {
  return async (tool, args) => {
    const t0 = performance.now();
    const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    const ms = performance.now() - t0;
    const content = r.content as Array<{ type: string; text?: string }>;
    const text = content.map((c) => c.text ?? '').join('\n');
    if (r.isError) throw new Error(`${name} ${tool} failed: ${text.split('\n').slice(0, 3).join(' ')}`);
    return { text, ms, images: content.filter((c) => c.type === 'image').length };
  };
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once('exit', () => { clearTimeout(t); resolve(true); });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try { process.kill(-child.pid!, signal); } catch { /* gone */ }
}

/** `forge serve` on a free port and a fresh state dir, with one MCP session for `seat`; `info` has its port and token. */
export async function startForge(root: string, seat: string): Promise<Contender & { info: ServerInfo }> {
  const forge = await spawnForge({ root, stateDirPrefix: 'forge-bench-', ownGroup: true, stopGraceMs: STOP_GRACE_MS, outputMaxChars: OUTPUT_KEPT_CHARS });
  try {
    const url = new URL(forge.info.mcp_url);
    url.searchParams.set('seat', seat);
    const client = new Client({ name: 'forge-bench', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${forge.info.token}` } } }));
    const { tools } = await client.listTools();
    return {
      name: 'forge',
      info: forge.info,
      call: caller('forge', client),
      refArg: refArgOf(tools),
      tools,
      stop: async () => { await client.close().catch(() => undefined); await forge.stop(); },
    };
  } catch (e) {
    await forge.stop();
    throw e;
  }
}

/** An Xvfb display of forge's host size, in its own process group, gone with the bench. */
async function startXvfb(): Promise<{ display: number; stop: () => Promise<void> }> {
  const child = spawn(SETPRIV_BINARY, ['--pdeathsig', 'SIGTERM', '--', XVFB_BINARY, '-displayfd', '3',
    '-screen', '0', `${SCREEN_WIDTH}x${SCREEN_HEIGHT}x24`, '-nolisten', 'tcp', '-noreset', '-nocursor'],
  { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const stop = async (): Promise<void> => {
    killGroup(child, 'SIGTERM');
    if (!(await waitExit(child, STOP_GRACE_MS))) { killGroup(child, 'SIGKILL'); await waitExit(child, STOP_GRACE_MS); }
  };
  try {
    const display = await new Promise<number>((resolve, reject) => {
      let got = '';
      const t = setTimeout(() => reject(new Error('Xvfb did not report its display in time')), START_TIMEOUT_MS);
      (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
        got += d.toString();
        if (got.includes('\n')) { clearTimeout(t); resolve(Number(got.trim())); }
      });
      child.once('exit', (code, signal) => { clearTimeout(t); reject(new Error(`Xvfb exited at start (${signal ?? code})`)); });
    });
    return { display, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Playwright MCP's CLI over stdio, headful on its own Xvfb with an on-disk profile (as forge's
 * host), the same Chromium binary and forge's page size. `settleMs` passes --timeout-settle;
 * undefined keeps Playwright MCP's default, which is what its users get.
 */
export async function startPlaywrightMcp(settleMs?: number): Promise<Contender & { version: string; dir: string }> {
  const require = createRequire(import.meta.url);
  const pkgFile = require.resolve('@playwright/mcp/package.json');
  const version = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { version: string }).version;
  const work = mkdtempSync(join(tmpdir(), 'forge-bench-pwmcp-'));
  const xvfb = await startXvfb();
  const args = [join(dirname(pkgFile), 'cli.js'),
    '--executable-path', CHROMIUM_BINARY, '--no-sandbox',
    '--user-data-dir', join(work, 'profile'), '--output-dir', join(work, 'output'),
    '--viewport-size', `${DEFAULT_PAGE_WIDTH}x${DEFAULT_PAGE_HEIGHT}`,
    ...(settleMs === undefined ? [] : ['--timeout-settle', String(settleMs)])];
  const transport = new StdioClientTransport({
    command: process.execPath, args, cwd: work, stderr: 'pipe',
    env: { ...process.env as Record<string, string>, DISPLAY: `:${xvfb.display}` },
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
  const client = new Client({ name: 'forge-bench', version: '0' });
  let tree: ReturnType<typeof descendants> = [];
  const stop = async (): Promise<void> => {
    if (transport.pid) tree = [...tree, ...descendants(transport.pid)];
    await client.close().catch(() => undefined);
    await killLeftovers(tree);
    await xvfb.stop();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await client.connect(transport);
    const call = caller('playwright_mcp', client);
    const { tools } = await client.listTools();
    return {
      name: 'playwright_mcp',
      version,
      dir: work,
      refArg: refArgOf(tools),
      tools,
      call: async (tool, a) => {
        const r = await call(tool, a).catch((e: Error) => { throw new Error(`${e.message}${err ? `\n${err.slice(-1000)}` : ''}`); });
        // The browser starts on the first call: remember its processes while they are known.
        if (tree.length === 0 && transport.pid) tree = descendants(transport.pid);
        return r;
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw new Error(`Playwright MCP did not start: ${(e as Error).message}\n${err}`);
  }
}
