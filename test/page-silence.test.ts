/**
 * A page that never answers is told as the page's silence, not the host's: an evaluate whose
 * promise never settles answers within the evaluate's own bound, the host stays up, and the
 * seat's next call on that tab runs.
 */
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { hostBrowserPid } from './helpers/processes.js';
import { EVALUATE_TIMEOUT_MS } from '../dist/src/shared/limits.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;

const it = forgeTest({}, { '/': '<title>Quiet</title><p>still here</p>' });

it.beforeAll(async ({ forge: server, pages: served, agentFor }) => {
  forge = server;
  pages = served;
  a = await agentFor('default/silence/lead');
  await a.call('browser_navigate', { url: pages.url });
});

describe('an evaluate the page never answers', () => {
  it('answers with the page\'s silence within the evaluate\'s bound; the host is not blamed, stays up, and the next call runs', { timeout: EVALUATE_TIMEOUT_MS + 30_000 }, async () => {
    const pid = hostBrowserPid(forge.stateDir);
    const r = await a.call('browser_evaluate', { function: '() => new Promise(() => {})' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(new RegExp(`^the page in tab 1 \\(p-[0-9a-f]{8}\\) did not answer the evaluate within ${EVALUATE_TIMEOUT_MS / 1000} s; the page still runs`));
    expect(r.text).not.toContain('host');

    const next = await a.call('browser_snapshot');
    expect(next.isError, next.text).toBe(false);
    expect(next.text).toContain('still here');
    expect(next.text).not.toMatch(/host exited|fresh host/);
    expect(hostBrowserPid(forge.stateDir)).toBe(pid);
  });
});
