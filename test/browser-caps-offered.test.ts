import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

/** One tool of each opt-in group, by the group forge.toml's [agent] caps names. */
const GROUP_TOOLS = {
  vision: 'browser_mouse_click_xy',
  pdf: 'browser_pdf_save',
  storage: 'browser_cookie_list',
  network: 'browser_route',
  testing: 'browser_verify_value',
  devtools: 'browser_start_video',
} as const;

const SEAT = 'default/caps/lead';

const it = forgeTest();
/** A server of its own whose forge.toml opts in to two groups. */
const opted = forgeTest({ toml: '[agent]\ncaps = ["vision", "testing"]\n' });

const names = async (agent: Agent): Promise<Set<string>> => new Set((await agent.client.listTools()).tools.map((t) => t.name));

describe('an opt-in group of browser tools is offered only when [agent] caps names it', () => {
  it('without caps, no group tool is offered and the core tools are', async ({ agentFor }) => {
    const offered = await names(await agentFor(SEAT));
    for (const tool of Object.values(GROUP_TOOLS)) expect(offered.has(tool), tool).toBe(false);
    expect(offered.has('browser_run_code_unsafe')).toBe(false);
    for (const core of ['browser_click', 'browser_take_screenshot', 'browser_file_upload']) expect(offered.has(core), core).toBe(true);
  });

  opted('caps = ["vision", "testing"] offers those groups and no other', async ({ agentFor }) => {
    const offered = await names(await agentFor(SEAT));
    expect(offered.has(GROUP_TOOLS.vision)).toBe(true);
    expect(offered.has('browser_mouse_drag_xy')).toBe(true);
    expect(offered.has(GROUP_TOOLS.testing)).toBe(true);
    expect(offered.has('browser_generate_locator')).toBe(true);
    expect(offered.has(GROUP_TOOLS.pdf)).toBe(false);
    expect(offered.has(GROUP_TOOLS.storage)).toBe(false);
    expect(offered.has(GROUP_TOOLS.network)).toBe(false);
    for (const devtools of ['browser_start_video', 'browser_stop_video', 'browser_start_tracing', 'browser_stop_tracing']) expect(offered.has(devtools), devtools).toBe(false);
  });

  it('a call to a group tool the server does not offer is refused', async ({ agentFor }) => {
    const r = await (await agentFor(SEAT)).call('browser_mouse_click_xy', { x: 1, y: 1 }).catch((e: Error) => ({ text: e.message, isError: true }));
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/browser_mouse_click_xy/);
  });
});
