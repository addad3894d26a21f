import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startForge, type RunningServer } from './helpers/server.js';

let forge: RunningServer;
let own: string;

beforeAll(async () => {
  forge = await startForge();
  own = `127.0.0.1:${forge.info.port}`;
});
afterAll(async () => { await forge?.stop(); });

const REBOUND = (port: number): string => `evil.example:${port}`;
const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });

/** One request with the headers as given, Host included (a page whose name was rebound to loopback sends its own). */
function raw(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: forge.info.port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A viewer socket's upgrade answered with `headers`: the status of a refusal, or 101 when it opened. */
function upgrade(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws?token=${forge.info.viewer_token}`, { headers });
    ws.on('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); ws.terminate(); });
    ws.on('open', () => { resolve(101); ws.close(); });
    ws.on('error', (e) => { if (!/Unexpected server response/.test(e.message)) reject(e); });
  });
}

function mcp(headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return raw('/mcp?seat=default/p/lead', {
    'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${forge.info.token}`, ...headers,
  }, 'POST', init);
}

describe('a page at another name rebound to loopback reads nothing: every route answers only under a name forge serves', () => {
  it('the client page at / is served to its own name and refused with 421 in words to a rebound one', async () => {
    expect((await raw('/', { host: own })).status).toBe(200);
    const r = await raw('/', { host: REBOUND(forge.info.port) });
    expect(r.status).toBe(421);
    expect(r.text).toContain('this forge does not serve the name "evil.example:');
  });

  it('a hand-off page at /handoff/x is refused to a rebound name', async () => {
    expect((await raw('/handoff/x', { host: `localhost:${forge.info.port}` })).status).toBe(200);
    expect((await raw('/handoff/x', { host: REBOUND(forge.info.port) })).status).toBe(421);
  });

  it('/metrics is refused to a rebound name, the agents\' key notwithstanding', async () => {
    const auth = { authorization: `Bearer ${forge.info.token}` };
    expect((await raw('/metrics', { host: own, ...auth })).status).toBe(200);
    const r = await raw('/metrics', { host: REBOUND(forge.info.port), ...auth });
    expect(r.status).toBe(421);
    expect(r.text).not.toContain('forge_relay_viewers');
  });

  it('/download is refused to a rebound name before its link is read', async () => {
    expect((await raw('/download?k=bogus', { host: own })).text).toContain('this download link is not valid');
    expect((await raw('/download?k=bogus', { host: REBOUND(forge.info.port) })).status).toBe(421);
  });

  it('/mcp is refused to a rebound name', async () => {
    expect((await mcp({ host: own })).status).toBe(200);
    expect((await mcp({ host: REBOUND(forge.info.port) })).status).toBe(421);
  });

  it('the viewer socket is refused to a rebound name', async () => {
    expect(await upgrade({ host: own })).toBe(101);
    expect(await upgrade({ host: REBOUND(forge.info.port) })).toBe(421);
  });
});

describe('a browser page elsewhere cannot open the viewer socket or MCP, even with a stolen credential', () => {
  it('the viewer socket opens from forge\'s own page and with no Origin, and is refused with 403 from another origin', async () => {
    expect(await upgrade({ origin: `http://${own}` })).toBe(101);
    expect(await upgrade({})).toBe(101);
    expect(await upgrade({ origin: 'https://evil.example' })).toBe(403);
  });

  it('MCP answers a program (no Origin) and forge\'s own origin, and refuses another origin in words', async () => {
    expect((await mcp({})).status).toBe(200);
    expect((await mcp({ origin: `http://localhost:${forge.info.port}` })).status).toBe(200);
    const r = await mcp({ origin: 'https://evil.example' });
    expect(r.status).toBe(403);
    expect(r.text).toContain('a page at "https://evil.example" may not open this forge\'s viewer socket or MCP');
  });
});

describe('the main thread\'s loopback MCP endpoint answers the relay and the stdio bridge only', () => {
  /** A request straight to the loopback endpoint the relay forwards /mcp to. */
  function direct(headers: Record<string, string>): Promise<number> {
    const url = new URL(forge.info.local_mcp_url!);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: Number(url.port), path: '/mcp?seat=default/p/lead', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${forge.info.token}`, ...headers } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.end(init);
    });
  }

  it('a page reaching its port under a rebound name, or with any Origin, is refused with 403', async () => {
    expect(await direct({ host: `evil.example:${new URL(forge.info.local_mcp_url!).port}` })).toBe(403);
    expect(await direct({ origin: 'http://evil.example' })).toBe(403);
    expect(await direct({})).toBe(200);
  });
});
