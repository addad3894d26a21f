import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startForge, type RunningServer } from './helpers/server.js';
import { encodeControl } from '../src/shared/protocol.js';

let forge: RunningServer;

beforeAll(async () => { forge = await startForge(); });
afterAll(async () => { await forge?.stop(); });

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };

async function mcpPost(auth: string | undefined): Promise<Response> {
  return fetch(`${forge.info.mcp_url}?seat=default/p/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify(init),
  });
}

describe('nothing runs without the token', () => {
  it('MCP with no bearer token is 401', async () => {
    const r = await mcpPost(undefined);
    expect(r.status).toBe(401);
    expect(await r.text()).toContain('the bearer token is missing, wrong, expired or revoked');
  });

  it('MCP with a wrong bearer token is 401', async () => {
    expect((await mcpPost('Bearer not-the-token')).status).toBe(401);
  });

  it('MCP with the token and a malformed seat is refused naming the seat form', async () => {
    const r = await fetch(`${forge.info.mcp_url}?seat=nope`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${forge.info.token}` }, body: JSON.stringify(init) });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('a seat is ORG/PROJECT/LABEL');
  });

  it('a seat of another org is refused', async () => {
    const r = await fetch(`${forge.info.mcp_url}?seat=other/p/lead`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${forge.info.token}` }, body: JSON.stringify(init) });
    expect(r.status).toBe(403);
  });

  it('a viewer socket with a wrong token is refused at the door', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws?token=wrong`);
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });

  it('a viewer socket whose first message is not the token is closed', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws`);
    await new Promise((r) => ws.on('open', r));
    ws.send(encodeControl({ t: 'tabs' }));
    const code = await new Promise<number>((r) => ws.on('close', (c) => r(c)));
    expect(code).toBe(4401);
  });
});
