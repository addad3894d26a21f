/**
 * A terminal lives as long as its seat: while any session of the seat is open the shell runs on;
 * when the seat's last session ends, the shell is ended, its viewers are told why, and the seat's
 * next session starts a fresh one. The grace a seat waits for a reconnect is off here
 * (terminal-reconnect-grace.test.ts holds it).
 */
import { describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpClient } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';

const SEAT = 'default/proj/worker-7';

/** The MCP sessions opened: several of one seat, so by hand (`agentFor` keeps one a seat). */
const clients: Client[] = [];

async function shellPid(agent: Client): Promise<number> {
  const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo $$' } });
  expect(res.isError).toBeFalsy();
  return Number((res.structuredContent as { output: string }).output.trim());
}

const alive = (pid: number): boolean => { try { process.kill(pid, 0); return true; } catch { return false; } };
const end = (c: Client): Promise<void> => (c.transport as StreamableHTTPClientTransport).terminateSession();

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n[agent]\nreconnect_grace_s = 0\n' });

it.afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
});

describe('a terminal and its seat', () => {
  it('the shell runs while any session of the seat is open, and ends with the last one', async ({ forge }) => {
    const first = await mcpClient(forge.info, SEAT);
    const second = await mcpClient(forge.info, SEAT);
    clients.push(first, second);
    const pid = await shellPid(first);
    expect(alive(pid)).toBe(true);
    const viewer = await Viewer.open(forge.info);
    viewer.send({ t: 'term_attach', seat: SEAT, cols: 80, rows: 24 });
    await viewer.until(() => viewer.message('term_view'), 15_000, 'term_view');

    await end(first);
    // The seat still has a session: the same shell answers it.
    expect(await shellPid(second)).toBe(pid);

    await end(second);
    const closed = await viewer.until(() => viewer.message('term_closed'), 10_000, 'the terminal closing');
    expect(String(closed.message)).toContain("seat's session ended");
    await viewer.until(() => !alive(pid), 10_000, 'the shell ending');
    viewer.close();

    const next = await mcpClient(forge.info, SEAT);
    clients.push(next);
    const fresh = await shellPid(next);
    expect(fresh).not.toBe(pid);
  });
});
