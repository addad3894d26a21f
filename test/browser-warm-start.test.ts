/**
 * The host starts on its first real need, not only a page call: a seat's MCP session opening
 * under the profile, and a person asking to see the browser (the strip's show, a hand-off's
 * Open). The first page call then runs on the host already up.
 */
import { describe, expect } from 'vitest';
import type { RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { processes } from './helpers/processes.js';

let forge: RunningServer;

const it = forgeTest({}, { '/': '<title>Warm</title><p>warm</p>' });

it.beforeAll(({ forge: f }) => {
  forge = f;
});

/** The pid of this server's host Chromium (the browser process), 0 when none runs. */
const hostPid = (): number => processes().find((p) => p.cmd.includes('/chromium') && p.cmd.includes(forge.stateDir) && !p.cmd.includes('--type='))?.pid ?? 0;

async function untilHost(): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (!hostPid()) {
    if (Date.now() > deadline) throw new Error('no host started');
    await new Promise((r) => setTimeout(r, 100));
  }
  return hostPid();
}

describe('the host starts on its first real need', () => {
  it('a seat\'s session opening starts the host before any page call, and the first call runs on it', async ({ pages, agentFor }) => {
    expect(hostPid()).toBe(0);
    const lead = await agentFor('default/warm/lead');
    const pid = await untilHost();
    const first = await lead.call('browser_navigate', { url: pages.url });
    expect(first.isError).toBe(false);
    expect(first.text).toContain('warm');
    expect(hostPid()).toBe(pid);
  });

  it('a person showing the browser with no host running starts one', async ({ agentFor, viewer }) => {
    const lead = await agentFor('default/warm/lead');
    expect((await lead.call('browser_end_host')).isError).toBe(false);
    const deadline = Date.now() + 15_000;
    while (hostPid() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(hostPid()).toBe(0);
    viewer.send({ t: 'attach', w: 800, h: 600 });
    await untilHost();
  });
});
