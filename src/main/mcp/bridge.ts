/**
 * `forge mcp --seat ORG/PROJECT/LABEL`: a stdio MCP server for agents configured with a command
 * line. It relays every JSON-RPC message to the running server's HTTP endpoint for that state dir,
 * starting a server in the background when none runs.
 */
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { livingServer, resolveStateDir, type ServerInfo } from '../state.js';
import { parseSeat } from '../seat.js';
import { SEAT_ENV_META, agentEnvironment } from './seat-env.js';

/** How long the bridge waits for a server it started to write server.json, ms. */
const SERVER_START_WAIT_MS = 30_000;
/**
 * How long a bridge whose server refused to start (another agent's bridge started one a moment
 * before) waits for that server's server.json, ms: a server writes it as soon as it listens.
 */
const SERVER_RACE_WAIT_MS = 5_000;

async function findOrStartServer(stateDir: string, configFile?: string, port?: string): Promise<ServerInfo> {
  const info = livingServer(stateDir);
  if (info) return info;
  const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli.js');
  const logFd = openSync(join(stateDir, 'server.log'), 'a');
  const args = [cli, 'serve', '--state', stateDir, ...(configFile ? ['--config', configFile] : []), ...(port ? ['--port', port] : [])];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', logFd, logFd] });
  child.unref();
  let deadline = Date.now() + SERVER_START_WAIT_MS;
  let exited = false;
  while (Date.now() < deadline) {
    // Ours, or, when two agents start at once, the other's: the second server refuses the state dir.
    const now = livingServer(stateDir);
    if (now) return now;
    if (child.exitCode !== null && !exited) {
      exited = true;
      deadline = Math.min(deadline, Date.now() + SERVER_RACE_WAIT_MS);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the forge server did not start; see ${join(stateDir, 'server.log')}`);
}

/** How long the bridge waits for the server to end its session as the agent goes, ms. */
const SESSION_END_WAIT_MS = 2_000;

export async function runBridge(opts: { seat: string; stateDir?: string; config?: string; port?: string }): Promise<void> {
  const seat = parseSeat(opts.seat);
  const stateDir = resolveStateDir(opts.stateDir);
  const info = await findOrStartServer(stateDir, opts.config, opts.port);
  const url = new URL(info.local_mcp_url ?? info.mcp_url);
  url.searchParams.set('seat', seat.key);
  // The seat's terminal starts where its agent runs: its worktree, or its tree.
  url.searchParams.set('cwd', process.cwd());
  const upstream = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${info.token}` } } });
  const local = new StdioServerTransport();
  upstream.onmessage = (m) => { void local.send(m); };
  // The seat's shell starts with the agent's environment: it rides on the initialize request.
  const env = agentEnvironment(process.env);
  local.onmessage = (m) => {
    if ('method' in m && m.method === 'initialize') {
      const params = (m.params ?? {}) as { _meta?: Record<string, unknown> };
      m = { ...m, params: { ...params, _meta: { ...params._meta, [SEAT_ENV_META]: env } } };
    }
    void upstream.send(m).catch((e: Error) => process.stderr.write(`forge mcp: ${e.message}\n`));
  };
  let ending = false;
  // The agent went (its stdin ended): the session is ended on the server, so the seat's tabs go with it.
  const end = async (): Promise<void> => {
    if (ending) return;
    ending = true;
    await Promise.race([upstream.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, SESSION_END_WAIT_MS))]);
    void upstream.close();
    void local.close();
    process.exit(0);
  };
  upstream.onclose = () => void end();
  local.onclose = () => void end();
  process.stdin.once('end', () => void end());
  upstream.onerror = (e) => process.stderr.write(`forge mcp: ${e.message}\n`);
  await upstream.start();
  await local.start();
}
