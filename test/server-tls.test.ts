/**
 * With [server] tls_cert and tls_key the relay serves HTTPS and WSS, and only those: the client
 * page over https, a viewer socket over wss with a person's token, the printed links in https, and
 * the stdio bridge on the same machine still reaches MCP whatever the certificate's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startForge, type RunningServer } from './helpers/server.js';
import { decodeControl } from '../src/shared/protocol.js';

const haveOpenssl = spawnSync('openssl', ['version']).status === 0;
if (!haveOpenssl) console.warn('server-tls: skipped, the openssl command is not installed (it makes the test certificate)');

/** A self-signed certificate for 127.0.0.1 and localhost, made with the openssl command line. */
function makeCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl could not make a test certificate: ${r.stderr}`);
  return { cert, key };
}

describe.skipIf(!haveOpenssl)('a server with a certificate serves HTTPS and WSS', () => {
  let dir = '';
  let ca: Buffer;
  let forge: RunningServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'forge-tls-'));
    const { cert, key } = makeCert(dir);
    ca = readFileSync(cert);
    // The LAN path: every address, which TLS makes allowed.
    forge = await startForge({ toml: `[server]\nhost = "0.0.0.0"\ntls_cert = "${cert}"\ntls_key = "${key}"\n` });
  });
  afterAll(async () => {
    await forge?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints and records the viewer and MCP links in https', () => {
    expect(forge.info.viewer_url).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${forge.info.port}/\\?token=`));
    expect(forge.info.mcp_url).toBe(`https://127.0.0.1:${forge.info.port}/mcp`);
    expect(forge.output()).toContain(`viewer: https://127.0.0.1:${forge.info.port}/?token=`);
    expect(forge.output()).toContain(`mcp:    https://127.0.0.1:${forge.info.port}/mcp`);
  });

  it('serves the client page over https, verified against its certificate', async () => {
    const r = await httpsGet({});
    expect(r.status).toBe(200);
    expect(r.body).toContain('<script type="module" src="/main.js">');
  });

  it('answers under the machine\'s own LAN address, as a phone opens it', async (t) => {
    const lan = Object.values(networkInterfaces()).flatMap((l) => l ?? []).find((a) => a.family === 'IPv4' && !a.internal);
    if (!lan) { t.skip(); return; }
    expect((await httpsGet({ host: `${lan.address}:${forge.info.port}` })).status).toBe(200);
    expect((await httpsGet({ host: `evil.example:${forge.info.port}` })).status).toBe(421);
  });

  function httpsGet(headers: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      // A Host of another name: the chain is still checked against the test's certificate, the name is the test's to choose.
      const named = headers.host ? { checkServerIdentity: () => undefined } : {};
      const req = httpsRequest(`${new URL(forge.info.viewer_url).origin}/`, { ca, headers, ...named }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { body += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('does not answer plain http on its port', async () => {
    const r = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port: forge.info.port, path: '/', timeout: 3_000 }, (res) => resolve(`answered ${res.statusCode}`));
      req.on('timeout', () => { req.destroy(); resolve('no answer'); });
      req.on('error', () => resolve('no answer'));
      req.end();
    });
    expect(r).toBe('no answer');
  });

  it('opens a viewer socket over wss with the viewer token', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${forge.info.port}/ws?token=${forge.info.viewer_token}`, { ca });
    const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
      ws.once('message', (data: Buffer) => {
        const d = decodeControl(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        if (d.ok) resolve(d.msg as Record<string, unknown>); else reject(new Error(d.reason));
      });
      ws.once('error', reject);
      ws.once('close', (code, reason) => reject(new Error(`closed ${code} ${reason.toString()}`)));
    });
    expect(typeof first.t).toBe('string');
    ws.removeAllListeners('close');
    await new Promise((r) => { ws.once('close', r); ws.close(); });
  });

  it('lets the stdio bridge on this machine reach MCP though the certificate is one it does not trust', async () => {
    const client = new Client({ name: 'forge-test', version: '0' });
    await client.connect(new StdioClientTransport({
      command: process.execPath,
      args: ['dist/src/main/cli.js', 'mcp', '--seat', 'default/tls/lead', '--state', forge.stateDir],
      stderr: 'pipe',
    }));
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('terminal__run');
    await client.close();
  });
});
