/**
 * [server] public_url is the name people reach forge by (its own TLS name, or a proxy's): every
 * printed link, every hand-off link and forge token new's viewer link is built on it, and forge
 * answers requests under that name, a viewer socket from a page of that origin included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startForge, connectAgent, type Agent, type RunningServer } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

const PUBLIC = 'https://forge.example.com';
let forge: RunningServer;
let pages: PageServer;
let agent: Agent;
let person: TestViewer;

beforeAll(async () => {
  forge = await startForge({ toml: `[server]\npublic_url = "${PUBLIC}"\n` });
  pages = await servePages({ '/': '<title>Sign in</title><h1>sign in</h1>' });
  // The public name resolves nowhere here: the agent speaks to the loopback endpoint, as the stdio bridge does.
  agent = await connectAgent({ ...forge, info: { ...forge.info, mcp_url: forge.info.local_mcp_url! } }, 'default/pub/lead');
  person = await openViewer(forge.info.port, forge.info.viewer_token);
});
afterAll(async () => {
  await person?.close();
  await agent?.close().catch(() => undefined);
  await forge?.stop();
  await pages?.close();
});

describe('every link forge hands out is built on public_url', () => {
  it('the printed and recorded viewer and MCP links', () => {
    expect(forge.info.viewer_url).toBe(`${PUBLIC}/?token=${forge.info.viewer_token}`);
    expect(forge.info.mcp_url).toBe(`${PUBLIC}/mcp`);
    expect(forge.output()).toContain(`viewer: ${PUBLIC}/?token=`);
    expect(forge.output()).toContain(`mcp:    ${PUBLIC}/mcp`);
  });

  it('forge token new\'s viewer link', () => {
    const r = spawnSync(process.execPath, ['dist/src/main/cli.js', 'token', 'new', '--name', 'phone', '--expires', '8h', '--state', forge.stateDir], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^viewer: https:\/\/forge\.example\.com\/\?token=\S+$/m);
  });

  it('a browser hand-off\'s signed link', async () => {
    const nav = await agent.call('browser_navigate', { url: pages.url });
    const pageId = /p-[0-9a-f]{8}/.exec(nav.text)![0];
    const progress: string[] = [];
    const call = agent.client.callTool({ name: 'browser_hand_off', arguments: { page_id: pageId, message: 'Sign in on your phone' } }, undefined, {
      timeout: 60_000, onprogress: (p) => { progress.push(String(p.message ?? '')); },
    });
    const asks = await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1);
    await expect.poll(() => progress.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(progress[0]).toMatch(/https:\/\/forge\.example\.com\/handoff\/h\./);
    person.send({ t: 'answer', handoff: ((asks.asks as Array<Record<string, unknown>>)[0]!).id as string, answer: 'done' });
    await call;
  });
});

describe('forge answers under its public name', () => {
  it('the client page, with the name as a proxy forwards it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: forge.info.port, path: '/', headers: { host: 'forge.example.com' } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('a viewer socket from a page of the public origin', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws?token=${forge.info.viewer_token}`, { headers: { host: 'forge.example.com', origin: PUBLIC } });
    const outcome = await new Promise<string>((resolve) => {
      ws.on('open', () => resolve('open'));
      ws.on('unexpected-response', (_req, res) => resolve(`refused ${res.statusCode}`));
      ws.on('error', () => undefined);
    });
    expect(outcome).toBe('open');
    ws.close();
  });
});
