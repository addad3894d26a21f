import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;
let b: Agent;

const it = toolPagesTest({ toml: '[agent]\ncaps = ["network"]\n' }, {
  '/': '<html><head><title>App</title></head><body><h1>App</h1></body></html>',
  '/api/user': { type: 'application/json', body: '{"name":"real"}' },
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/routes/lead');
  b = await agentFor('default/routes/other');
  await a.call('browser_navigate', { url: pages.url });
  await b.call('browser_navigate', { url: pages.url });
});

const fetched = async (agent: Agent, path: string): Promise<string> =>
  (await agent.call('browser_evaluate', { function: `() => fetch('${path}').then((r) => r.status + ' ' + r.headers.get('content-type')).catch((e) => 'failed: ' + e.message)` })).text;
const body = async (agent: Agent, path: string): Promise<string> =>
  (await agent.call('browser_evaluate', { function: `() => fetch('${path}').then(async (r) => r.status + ' ' + await r.text()).catch((e) => 'failed: ' + e.message)` })).text;

describe('the network group mocks and cuts off only the seat\'s own tabs', () => {
  it('a route mocks the seat\'s requests; another seat\'s tab gets the real answer', async () => {
    const r = await a.call('browser_route', { pattern: '**/api/user', status: 201, body: '{"name":"mock"}', contentType: 'application/json' });
    expect(r.isError, r.text).toBe(false);
    expect(await body(a, '/api/user')).toContain('201 {\\"name\\":\\"mock\\"}');
    expect(await body(b, '/api/user')).toContain('200 {\\"name\\":\\"real\\"}');
    expect(await fetched(a, '/api/user')).toContain('application/json');
    expect((await a.call('browser_route_list', {})).text).toContain('1. **/api/user (status=201, body={"name":"mock"}, contentType=application/json)');
    expect((await b.call('browser_route_list', {})).text).toContain('You hold no routes.');
  });

  it('unroute takes the mock away', async () => {
    const r = await a.call('browser_unroute', { pattern: '**/api/user' });
    expect(r.text).toContain('Removed 1 route for **/api/user; 0 left.');
    expect(await body(a, '/api/user')).toContain('200 {\\"name\\":\\"real\\"}');
  });

  it('offline fails the seat\'s requests and not another seat\'s, until it is set online', async () => {
    const off = await a.call('browser_network_state_set', { state: 'offline' });
    expect(off.isError, off.text).toBe(false);
    expect(await body(a, '/api/user')).toContain('failed:');
    expect(await body(b, '/api/user')).toContain('200');
    // A tab the seat opens while offline is offline too.
    await a.call('browser_tabs', { action: 'new' });
    const second = await a.call('browser_navigate', { url: pages.url });
    expect(second.isError).toBe(true);
    await a.call('browser_network_state_set', { state: 'online' });
    const back = await a.call('browser_navigate', { url: pages.url });
    expect(back.isError, back.text).toBe(false);
    expect(await body(a, '/api/user')).toContain('200');
  });
});
