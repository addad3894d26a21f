/**
 * MCP sessions idle past the bound are reaped as a closed session ends: an agent that died without
 * closing releases its seat (its tab stops saying "in use", its terminal goes), /metrics counts it,
 * and its session id answers 404 so a client re-initializes. A session with a call running, or a
 * live client's open GET stream, is never reaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { startForge, connectAgent, type Agent, type RunningServer } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

/** The idle bound this server runs with, ms: short, so the test sees reaping; a call below outlasts it several times. */
const IDLE_MS = 1500;
/** A call's length, ms: past three idle bounds. */
const LONG_CALL_MS = 3 * IDLE_MS + 500;

let forge: RunningServer;
let pages: PageServer;
let viewer: TestViewer;
let live: Agent;

/** An agent in a process of its own: it opens a tab, says its session id, then sits there until killed. */
const AGENT_SCRIPT = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const url = new URL(process.env.AGENT_MCP_URL);
url.searchParams.set('seat', process.env.AGENT_SEAT);
const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: 'Bearer ' + process.env.AGENT_TOKEN } } });
const client = new Client({ name: 'crashing-agent', version: '0' });
await client.connect(transport);
await client.callTool({ name: 'browser_navigate', arguments: { url: process.env.AGENT_PAGE } }, undefined, { timeout: 60000 });
process.stdout.write('READY ' + transport.sessionId + '\\n');
setInterval(() => {}, 1 << 30);
`;

async function agentProcess(seat: string): Promise<{ proc: ChildProcess; sessionId: string }> {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', AGENT_SCRIPT], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AGENT_MCP_URL: forge.info.mcp_url, AGENT_SEAT: seat, AGENT_TOKEN: forge.info.token, AGENT_PAGE: pages.url },
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const end = Date.now() + 60_000;
  for (;;) {
    const m = /READY (\S+)/.exec(out);
    if (m) return { proc, sessionId: m[1]! };
    if (proc.exitCode !== null || Date.now() > end) { proc.kill('SIGKILL'); throw new Error(`the agent process did not come up:\n${out}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function metric(name: string): Promise<number | undefined> {
  const res = await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } });
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(await res.text());
  return m ? Number(m[1]) : undefined;
}

async function metricBecomes(name: string, want: number, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  let seen: number | undefined;
  while (Date.now() < end) {
    seen = await metric(name);
    if (seen === want) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} stayed ${seen} within ${ms} ms; wanted ${want}`);
}

/** A bare MCP client with no GET stream: JSON-RPC posts, answers read whole. */
class PostOnlyClient {
  sessionId = '';
  private nextId = 1;

  async post(body: Record<string, unknown>): Promise<{ status: number; text: string }> {
    const url = new URL(forge.info.mcp_url);
    url.searchParams.set('seat', 'default/reap/busy');
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${forge.info.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(this.sessionId ? { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': '2025-03-26' } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
    this.sessionId ||= res.headers.get('mcp-session-id') ?? '';
    return { status: res.status, text: await res.text() };
  }

  async initialize(): Promise<void> {
    const init = await this.post({ id: this.nextId++, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'post-only', version: '0' } } });
    expect(init.status).toBe(200);
    expect((await this.post({ method: 'notifications/initialized' })).status).toBe(202);
  }

  call(name: string, args: Record<string, unknown>): Promise<{ status: number; text: string }> {
    return this.post({ id: this.nextId++, method: 'tools/call', params: { name, arguments: args } });
  }
}

beforeAll(async () => {
  // No reconnect grace: a reaped seat is released at once.
  forge = await startForge({ env: { FORGE_MCP_SESSION_IDLE_MS: String(IDLE_MS) }, toml: '[agent]\nreconnect_grace_s = 0\n' });
  pages = await servePages({ '/': '<title>Crash site</title><p>an agent was here</p>' });
  // A live client keeps its GET stream open the whole test, and never calls.
  live = await connectAgent(forge, 'default/reap/live');
  viewer = await openViewer(forge.info.port, forge.info.viewer_token);
});

afterAll(async () => {
  await viewer?.close();
  await live?.close();
  await forge?.stop();
  await pages?.close();
});

describe('idle MCP sessions are reaped', () => {
  it('an agent killed without closing its session is reaped: its tab stops saying "in use", /metrics counts it, its session id answers 404', async () => {
    const crashed = await agentProcess('default/reap/crashed');
    try {
      viewer.send({ t: 'tabs' });
      await viewer.next('tabs', (m) => (m.tabs as Array<{ owner: string; state: string }>).some((t) => t.owner === 'default/reap/crashed' && t.state === 'in use'));
      await metricBecomes('forge_mcp_sessions', 2);
      expect(await metric('forge_mcp_sessions_reaped_total')).toBe(0);

      crashed.proc.kill('SIGKILL');
      await viewer.next('tabs', (m) => !(m.tabs as Array<{ owner: string; state: string }>).some((t) => t.owner === 'default/reap/crashed' && t.state === 'in use'), 20_000);
      await metricBecomes('forge_mcp_sessions', 1);
      expect(await metric('forge_mcp_sessions_reaped_total')).toBe(1);

      // The agent coming back with its old session id is told the session is gone, as the MCP spec says.
      const back = new PostOnlyClient();
      back.sessionId = crashed.sessionId;
      const answer = await back.post({ id: 7, method: 'tools/list' });
      expect(answer.status).toBe(404);
      expect(answer.text).toContain('initialize a new one');
    } finally {
      crashed.proc.kill('SIGKILL');
    }
  });

  it('a session with a call running past the idle bound is not reaped; once it stops calling it is, and its terminal goes with it', async () => {
    const busy = new PostOnlyClient();
    await busy.initialize();
    const waiting = busy.call('terminal__wait', { until: 'text', text: 'text-that-never-shows', timeout_ms: LONG_CALL_MS });
    await metricBecomes('forge_mcp_sessions', 2);
    const waited = await waiting;
    expect(waited.status).toBe(200);
    expect(waited.text).toContain(`not yet after ${LONG_CALL_MS} ms`);
    expect(await metric('forge_mcp_sessions_reaped_total')).toBe(1);
    const read = await busy.call('terminal__read', {});
    expect(read.status).toBe(200);
    expect(read.text).toContain('terminal');
    await metricBecomes('forge_terminals', 1);

    // No call and no stream from here on: it is reaped, and its seat's terminal ends as at a close.
    await metricBecomes('forge_mcp_sessions_reaped_total', 2);
    await metricBecomes('forge_mcp_sessions', 1);
    await metricBecomes('forge_terminals', 0);
    expect((await busy.call('terminal__read', {})).status).toBe(404);
  });

  it('a live client holding its GET stream open is never reaped, though it made no call for many idle bounds', async () => {
    const tools = await live.client.listTools();
    expect(tools.tools.some((t) => t.name === 'browser_navigate')).toBe(true);
  });
});
