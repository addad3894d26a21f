/**
 * The host never loses its last window to a race: seats whose sessions all end at once, owning
 * every window between them, close all but one, and the last is blanked and kept, so Chromium
 * stays up and the next call runs on the same host.
 */
import { describe, expect } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { forgeTest } from './fixtures.js';
import { hostBrowserPid } from './helpers/processes.js';

const SEATS = 5;

const it = forgeTest({}, { '/': '<title>Mine</title><p>mine</p>' });

describe('sessions that own every window end at once', () => {
  it(`${SEATS} seats each with a tab, all ending together, leave the host up: the next call runs on the same Chromium without a restart notice`, async ({ forge, pages, agentFor }) => {
    const seats = await Promise.all(Array.from({ length: SEATS }, (_, i) => agentFor(`default/last${i}/lead`)));
    for (const s of seats) expect((await s.call('browser_navigate', { url: pages.url })).isError).toBe(false);
    const list = await seats[0]!.call('browser_tabs', { action: 'list' });
    // Every window is a seat's: the first seat adopted the host's boot tab.
    expect(list.text).not.toContain('boot tab');
    const pid = hostBrowserPid(forge.stateDir);

    await Promise.all(seats.map((s) => (s.client.transport as StreamableHTTPClientTransport).terminateSession()));
    await new Promise((r) => setTimeout(r, 3_000));

    const after = await agentFor('default/later/lead');
    const r = await after.call('browser_navigate', { url: pages.url });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).not.toMatch(/host exited|fresh host/);
    expect(r.text).toContain('mine');
    expect(hostBrowserPid(forge.stateDir)).toBe(pid);
  });
});
