/**
 * A load that fails with a network error (no such host, a refused connection, a port the browser
 * will not use) answers once the browser's error page is in the tab, so the agent's next
 * navigation lands: never "interrupted by another navigation" to the error page of the one
 * before, and never a step behind.
 */
import { createServer } from 'node:net';
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

const it = forgeTest({}, {
  '/good': '<html><head><title>Good page</title></head><body><h1>Arrived</h1></body></html>',
  '/other': '<html><head><title>Other page</title></head><body><h1>Also arrived</h1></body></html>',
});

/** A loopback port nothing listens on: bound and closed again. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('navigating after a load that failed', () => {
  let a: Agent;
  it.beforeAll(async ({ agentFor }) => {
    a = await agentFor('default/failed-load/lead');
  });

  it('each failed load is refused with its network error, and the navigation after each lands on its own page', async ({ pages }) => {
    const failing = [
      { url: 'http://no-such-host.invalid/', code: 'net::ERR_NAME_NOT_RESOLVED' },
      { url: `http://127.0.0.1:${await closedPort()}/`, code: 'net::ERR_CONNECTION_REFUSED' },
      { url: 'http://127.0.0.1:1/', code: 'net::ERR_UNSAFE_PORT' },
    ];
    for (const f of failing) {
      const bad = await a.call('browser_navigate', { url: f.url });
      expect(bad.isError, bad.text).toBe(true);
      expect(bad.text).toContain(f.code);
      expect(bad.text).toContain('the tab shows the browser\'s error page');
      const good = await a.call('browser_navigate', { url: `${pages.origin}/good` });
      expect(good.isError, good.text).toBe(false);
      expect(good.text).toContain(`· Good page · ${pages.origin}/good`);
      expect(good.text).toContain('heading "Arrived"');
    }
  });

  it('two failed loads in a row, then a good one: each answer is about its own address', async ({ pages }) => {
    const first = await a.call('browser_navigate', { url: 'http://no-such-host.invalid/' });
    expect(first.text).toContain('net::ERR_NAME_NOT_RESOLVED');
    const second = await a.call('browser_navigate', { url: 'http://127.0.0.1:1/' });
    expect(second.text).toContain('net::ERR_UNSAFE_PORT');
    expect(second.text).not.toMatch(/interrupted by another navigation/);
    const good = await a.call('browser_navigate', { url: `${pages.origin}/other` });
    expect(good.isError, good.text).toBe(false);
    expect(good.text).toContain(`· Other page · ${pages.origin}/other`);
  });

  it('a new tab opened at an address that fails, then navigated, shows the good page', async ({ pages }) => {
    const opened = await a.call('browser_tabs', { action: 'new', url: 'http://no-such-host.invalid/' });
    expect(opened.text).toContain('net::ERR_NAME_NOT_RESOLVED');
    const good = await a.call('browser_navigate', { url: `${pages.origin}/good` });
    expect(good.isError, good.text).toBe(false);
    expect(good.text).toContain(`· Good page · ${pages.origin}/good`);
  });
});
