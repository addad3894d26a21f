/**
 * A seat outlives a reconnect: when its last MCP session ends and a new one opens within
 * [agent] reconnect_grace_s (an agent's /new or /resume, `forge mcp` restarting), its tabs have
 * closed but its terminal, shell and scrollback are as it left them. With no session by the end
 * of the grace, the seat is released: its terminal ends and its viewers are told.
 */
import { describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpClient } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';

const SEAT = 'default/proj/resumer';
/** The test's grace, s: long enough for a reconnect, short enough to wait out. */
const GRACE_S = 4;

/** The MCP sessions opened: several of one seat, so by hand (`agentFor` keeps one a seat). */
const clients: Client[] = [];

const text = (r: Awaited<ReturnType<Client['callTool']>>): string => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
async function shellPid(agent: Client): Promise<number> {
  const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo $$' } });
  expect(res.isError).toBeFalsy();
  return Number((res.structuredContent as { output: string }).output.trim());
}
const alive = (pid: number): boolean => { try { process.kill(pid, 0); return true; } catch { return false; } };
const end = (c: Client): Promise<void> => (c.transport as StreamableHTTPClientTransport).terminateSession();

const it = forgeTest(
  { toml: `[terminal]\nshell = "/bin/bash"\n[agent]\nreconnect_grace_s = ${GRACE_S}\n` },
  { '/': '<title>Kept?</title><p>page</p>' },
);

it.afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
});

describe('a seat outlives a reconnect', () => {
  it('a new session within the grace finds the same shell and its scrollback; the seat\'s tabs have closed', async ({ forge, pages }) => {
    const first = await mcpClient(forge.info, SEAT);
    clients.push(first);
    await first.callTool({ name: 'terminal__run', arguments: { command: 'echo before-the-reconnect-$((6*7))' } });
    const pid = await shellPid(first);
    expect(text(await first.callTool({ name: 'browser_navigate', arguments: { url: pages.url } }))).toContain('page');

    await end(first);
    await new Promise((r) => setTimeout(r, 1000));
    const second = await mcpClient(forge.info, SEAT);
    clients.push(second);
    const read = await second.callTool({ name: 'terminal__read', arguments: {} });
    expect((read.structuredContent as { text: string }).text).toContain('before-the-reconnect-42');
    expect(await shellPid(second)).toBe(pid);
    expect(text(await second.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }))).not.toContain('Kept?');
  });

  it('with no session by the end of the grace the seat is released: its shell ends and its viewers are told', async ({ forge }) => {
    const agent = await mcpClient(forge.info, SEAT);
    clients.push(agent);
    const pid = await shellPid(agent);
    for (const c of clients) if (c !== agent) await end(c).catch(() => undefined);
    const viewer = await Viewer.open(forge.info);
    viewer.send({ t: 'term_attach', seat: SEAT, cols: 80, rows: 24 });
    await viewer.until(() => viewer.message('term_view'), 15_000, 'term_view');

    const ended = Date.now();
    await end(agent);
    const closed = await viewer.until(() => viewer.message('term_closed'), (GRACE_S + 10) * 1000, 'the terminal closing');
    expect(Date.now() - ended).toBeGreaterThanOrEqual(GRACE_S * 1000 - 100);
    expect(String(closed.message)).toContain(`its seat's session ended and no new one came within ${GRACE_S} s`);
    await viewer.until(() => !alive(pid), 10_000, 'the shell ending');
    viewer.close();
  });
});
