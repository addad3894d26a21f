import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const it = toolPagesTest({}, {
  '/': `<html><head><title>Talkative</title><link rel="stylesheet" href="/style.css"></head><body>
    <script>
      console.log('hello from the page');
      console.warn('low on stock');
      console.error('payment failed');
      console.debug('tiny detail');
      fetch('/api/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page: 2 }) });
      fetch('/api/missing');
      setTimeout(() => { throw new Error('boom later'); }, 0);
    </script></body></html>`,
  '/style.css': { type: 'text/css', body: 'body { color: black }' },
  '/api/orders': (body) => ({ type: 'application/json', body: JSON.stringify({ orders: [1, 2], asked: JSON.parse(body || '{}') }) }),
  '/other': '<html><head><title>Other</title></head><body><script>console.log("on the other page")</script></body></html>',
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/records/lead');
  await a.call('browser_navigate', { url: pages.url });
  await a.call('browser_wait_for', { time: 0.5 });
});

describe('the console of a page is kept for the agent', () => {
  it('info answers log, warnings, errors and uncaught errors, not debug', async () => {
    const r = await a.call('browser_console_messages');
    expect(r.isError).toBe(false);
    expect(r.text).toContain('[log] hello from the page');
    expect(r.text).toContain('[warning] low on stock');
    expect(r.text).toContain('[error] payment failed');
    // An uncaught error names where it was thrown: the page's own script, and its line.
    expect(r.text).toMatch(/\[error \(uncaught\)\] Error: boom later @ http:\/\/127\.0\.0\.1:\d+\/:9\n/);
    expect(r.text).not.toContain('tiny detail');
    expect((await a.call('browser_console_messages', { level: 'debug' })).text).toContain('tiny detail');
  });

  it('error answers only errors', async () => {
    const r = await a.call('browser_console_messages', { level: 'error' });
    expect(r.text).toContain('payment failed');
    expect(r.text).not.toContain('low on stock');
  });

  it('a navigation starts a new page; all answers the earlier one too', async () => {
    await a.call('browser_navigate', { url: `${pages.origin}/other` });
    const now = await a.call('browser_console_messages');
    expect(now.text).toContain('on the other page');
    expect(now.text).not.toContain('hello from the page');
    const all = await a.call('browser_console_messages', { all: true });
    expect(all.text).toContain('hello from the page');
    expect(all.text).toContain('on the other page');
    await a.call('browser_navigate', { url: pages.url });
    await a.call('browser_wait_for', { time: 0.5 });
  });
});

describe('the requests of a page are kept for the agent', () => {
  it('the list numbers the page\'s requests and leaves successful static ones out unless asked', async () => {
    const r = await a.call('browser_network_requests');
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/\d+\. \[POST\] [^\n]*\/api\/orders => \[200 OK\]/);
    expect(r.text).toMatch(/\[GET\] [^\n]*\/api\/missing => \[404/);
    expect(r.text).not.toContain('style.css');
    expect((await a.call('browser_network_requests', { static: true })).text).toContain('style.css');
    const f = await a.call('browser_network_requests', { filter: 'missing' });
    expect(f.text).toContain('/api/missing');
    expect(f.text).not.toContain('/api/orders');
  });

  it('one request answers in full or by part', async () => {
    const list = (await a.call('browser_network_requests')).text;
    const n = Number(/(\d+)\. \[POST\]/.exec(list)![1]);
    const full = await a.call('browser_network_request', { index: n });
    expect(full.text).toContain('content-type: application/json');
    expect(full.text).toContain('{"page":2}');
    const body = await a.call('browser_network_request', { index: n, part: 'response-body' });
    expect(body.text).toContain('"orders":[1,2]');
    expect(body.text).not.toContain('request-headers');
    const none = await a.call('browser_network_request', { index: 999 });
    expect(none.isError).toBe(true);
    expect(none.text).toContain('take browser_network_requests for the numbers');
  });
});

describe('an empty list says so and ends there', () => {
  it('no console message and no request shown each end the count line with a full stop, not a colon over nothing', async () => {
    await a.call('browser_navigate', { url: `${pages.origin}/other` });
    const errors = await a.call('browser_console_messages', { level: 'error' });
    expect(errors.text).toMatch(/; 0 at level error or more severe\.\n/);
    const requests = await a.call('browser_network_requests', { filter: 'no-such-address' });
    expect(requests.text).toMatch(/; 0 shown \(successful static resources left out; static: true lists them\)\.\n/);
    const some = await a.call('browser_console_messages');
    expect(some.text).toMatch(/1 at level info or more severe:\n.*on the other page/);
  });
});
