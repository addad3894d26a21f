/**
 * The cluster bench's hops through a real node (`./forge bench cluster`): two `forge serve` nodes,
 * alpha hosting a seat's profile and terminal, beta serving the same seat through alpha. The MCP
 * hop: `browser_tabs list` p50 direct to alpha against through beta. The terminal hop: a viewer's
 * received bytes per second during a flood, and keystroke-to-echo p50 for the keyboard holder,
 * on alpha against on beta.
 */
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeServerMessage, encodeControl, FRAME_KIND_TERMINAL } from '../src/shared/protocol.js';
import { readTermHeader } from '../src/shared/terminal.js';
import { spawnForge, type ForgeProcess } from './forge-process.js';
import { median } from './stamp.js';

const SEAT = 'default/hops/lead';
/** MCP calls timed each way after the warm-up. */
const MCP_CALLS = 100;
const MCP_WARMUP = 10;
/** Bytes the flood writes to the terminal: enough that the rate is not its start-up. */
const FLOOD_BYTES = 4_000_000;
/** Keystrokes timed to their echo each way. */
const ECHO_SAMPLES = 40;
/** Quiet after the flood's call returns in which its last bytes still count, ms. */
const FLOOD_SETTLE_MS = 500;

export interface HopResult {
  mcp: { direct_ms_p50: number; through_node_ms_p50: number; hop_ms_p50: number };
  terminal: { local_bytes_per_s: number; remote_bytes_per_s: number; local_echo_ms_p50: number; remote_echo_ms_p50: number };
}

const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function agentOn(node: ForgeProcess): Promise<Client> {
  const c = new Client({ name: 'forge-bench-hops', version: '0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${node.info.mcp_url}?seat=${SEAT}`), { requestInit: { headers: { Authorization: `Bearer ${node.info.token}` } } }));
  return c;
}

async function callP50(c: Client): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < MCP_WARMUP + MCP_CALLS; i++) {
    const t0 = performance.now();
    await c.callTool({ name: 'browser_tabs', arguments: { action: 'list' } });
    if (i >= MCP_WARMUP) ms.push(performance.now() - t0);
  }
  return median(ms);
}

/** A terminal viewer acking what it reads, counting bytes and watching for an echo. */
class TermViewer {
  term = 0;
  bytes = 0;
  lastByteAt = 0;
  private echo: ((s: string) => void) | null = null;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      if (data[0] === FRAME_KIND_TERMINAL) {
        const h = readTermHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
        const payload = data.subarray(h.hdrlen);
        this.bytes += payload.length;
        this.lastByteAt = performance.now();
        this.send({ t: 'term_ack', term: h.id, bytes: payload.length });
        this.echo?.(payload.toString('latin1'));
        return;
      }
      const m = decodeServerMessage(new Uint8Array(data));
      if (m?.t === 'term_view') this.term = m.term;
    });
  }

  static async open(node: ForgeProcess): Promise<TermViewer> {
    const ws = new WebSocket(`ws://127.0.0.1:${node.info.port}/ws?token=${node.info.viewer_token}`);
    await new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); });
    const v = new TermViewer(ws);
    v.send({ t: 'term_attach', seat: SEAT, cols: 120, rows: 40 });
    while (!v.term) await sleep(20);
    return v;
  }

  send(m: Record<string, unknown>): void { this.ws.send(encodeControl(m as never)); }

  waitEcho(ch: string): Promise<void> {
    return new Promise((r) => { this.echo = (s) => { if (s.includes(ch)) { this.echo = null; r(); } }; });
  }
}

async function floodRate(agent: Client, v: TermViewer): Promise<number> {
  const before = v.bytes;
  const t0 = performance.now();
  await agent.callTool({ name: 'terminal__run', arguments: { command: `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' x; echo`, timeout_ms: 120_000 } }, undefined, { timeout: 120_000 });
  await sleep(FLOOD_SETTLE_MS);
  return (v.bytes - before) / ((v.lastByteAt - t0) / 1000);
}

async function echoP50(v: TermViewer): Promise<number> {
  v.send({ t: 'term_control', term: v.term, take: true });
  await sleep(300);
  const ms: number[] = [];
  const alphabet = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < ECHO_SAMPLES; i++) {
    const ch = alphabet[i % alphabet.length]!;
    const seen = v.waitEcho(ch);
    const t0 = performance.now();
    v.send({ t: 'term_input', term: v.term, data: ch });
    await seen;
    ms.push(performance.now() - t0);
    if (i % alphabet.length === alphabet.length - 1) { v.send({ t: 'term_input', term: v.term, data: '\x15' }); await sleep(30); }
  }
  v.send({ t: 'term_input', term: v.term, data: '\x15' });
  v.send({ t: 'term_control', term: v.term, take: false });
  await sleep(200);
  return median(ms);
}

export async function measureHops(nats: { url: string; token: string }, log: (s: string) => void): Promise<HopResult> {
  const toml = (node: string): string => `[cluster]\nnats = "${nats.url}"\nnode = "${node}"\ntoken = "${nats.token}"\n\n[terminal]\nshell = "/bin/bash"\n`;
  const env = { FORGE_LOG_LEVEL: 'warn' };
  const [alpha, beta] = await Promise.all(['alpha', 'beta'].map((n) => spawnForge({ toml: toml(n), env, ownGroup: true, stopGraceMs: 5_000, outputMaxChars: 20_000 })));
  const agents: Client[] = [];
  const viewers: TermViewer[] = [];
  try {
    log('hops: an agent on alpha takes the profile and its terminal…');
    const direct = await agentOn(alpha!);
    agents.push(direct);
    await direct.callTool({ name: 'browser_navigate', arguments: { url: 'about:blank' } });
    await direct.callTool({ name: 'terminal__run', arguments: { command: 'true' } });
    const through = await agentOn(beta!);
    agents.push(through);
    log('hops: MCP calls direct and through beta…');
    const directMs = await callP50(direct);
    const throughMs = await callP50(through);
    log('hops: terminal viewers on alpha and on beta…');
    const local = await TermViewer.open(alpha!);
    const remote = await TermViewer.open(beta!);
    viewers.push(local, remote);
    // One viewer attached at a time per measurement: the other's acks would pace the same terminal.
    remote.ws.close();
    const localRate = await floodRate(direct, local);
    const localEcho = await echoP50(local);
    local.ws.close();
    const remote2 = await TermViewer.open(beta!);
    viewers.push(remote2);
    const remoteRate = await floodRate(direct, remote2);
    const remoteEcho = await echoP50(remote2);
    return {
      mcp: { direct_ms_p50: round(directMs), through_node_ms_p50: round(throughMs), hop_ms_p50: round(throughMs - directMs) },
      terminal: { local_bytes_per_s: Math.round(localRate), remote_bytes_per_s: Math.round(remoteRate), local_echo_ms_p50: round(localEcho), remote_echo_ms_p50: round(remoteEcho) },
    };
  } finally {
    for (const v of viewers) v.ws.close();
    for (const a of agents) await a.close().catch(() => undefined);
    await Promise.allSettled([alpha!.stop(), beta!.stop()]);
  }
}
