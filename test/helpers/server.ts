/** Starts a real `forge serve` for a test and connects real MCP clients to it. */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { processes } from './processes.js';
import { spawnForge } from '../../bench/forge-process.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ServerInfo } from '../../src/main/state.js';

export interface RunningServer {
  info: ServerInfo;
  stateDir: string;
  proc: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** `config` names a forge.toml; `toml` is one written into the state dir for this server. */
export async function startForge(opts: { config?: string; toml?: string; env?: Record<string, string> } = {}): Promise<RunningServer> {
  return spawnForge({ ...opts, stateDirPrefix: 'forge-test-', env: { FORGE_LOG_LEVEL: 'info', ...opts.env }, removeStateDir });
}

export interface Agent {
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<{ text: string; isError: boolean; structured?: unknown }>;
  close: () => Promise<void>;
}

export async function connectAgent(server: RunningServer, seat: string): Promise<Agent> {
  const url = new URL(server.info.mcp_url);
  url.searchParams.set('seat', seat);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${server.info.token}` } } });
  const client = new Client({ name: 'forge-test', version: '0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    const text = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
    return { text, isError: r.isError === true, structured: r.structuredContent };
  };
  return { client, call, close: () => client.close() };
}

/** Parks a browser hand-off on `pageId` and resolves with the agent's tool result once the person answers; progress lines land in `progress`. */
export function handOff(agent: Agent, pageId: string, message: string, progress: string[] = []): Promise<{ text: string; isError: boolean; structured?: unknown }> {
  return agent.client.callTool({ name: 'browser_hand_off', arguments: { page_id: pageId, message } }, undefined, {
    timeout: 120_000,
    onprogress: (p) => { progress.push(String(p.message ?? '')); },
  }).then((r) => ({ text: (r.content as Array<{ text: string }>)[0]!.text, isError: r.isError === true, structured: r.structuredContent }));
}

/** A bare MCP client (the SDK's) for a seat; `cwd` is the working directory the session names. */
export async function mcpClient(info: ServerInfo, seat = 'default/proj/lead', cwd?: string): Promise<Client> {
  const url = new URL(info.mcp_url);
  url.searchParams.set('seat', seat);
  if (cwd) url.searchParams.set('cwd', cwd);
  const client = new Client({ name: 'forge-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${info.token}` } } }));
  return client;
}

/**
 * Removes a stopped server's state dir. A host's last files may still be landing as its processes
 * go: retried as rm -rf would be, then once more after the processes still naming the dir are
 * gone; a failure names them.
 */
async function removeStateDir(stateDir: string): Promise<void> {
  try {
    rmSync(stateDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    return;
  } catch { /* below */ }
  const naming = (): string[] => processes().filter((p) => p.cmd.includes(stateDir)).map((p) => `${p.pid} ${p.cmd.slice(0, 120)}`);
  for (let i = 0; i < 50 && naming().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  const left = naming();
  try {
    rmSync(stateDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch (e) {
    throw new Error(`the state dir of a stopped server could not be removed (${(e as Error).message}); processes naming it: ${left.join('; ') || 'none'}`);
  }
}
