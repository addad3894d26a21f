/**
 * A shell held back for a keyboard holder that stopped acknowledging runs on once that holder's
 * socket closes: the hold is the holder's, and it goes with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startForge, mcpClient, type RunningServer } from './helpers/server.js';
import { Viewer } from './helpers/term-viewer.js';

const SEAT = 'default/proj/lead';
/** ~15 MB of numbered lines: far past the holder's backlog bound, so the shell is held. */
const LAST = 2_000_000;

describe('a lagging holder that leaves', () => {
  let server: RunningServer;
  let agent: Client;

  beforeAll(async () => {
    server = await startForge();
    agent = await mcpClient(server.info);
    await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo ready' } });
  });
  afterAll(async () => {
    await agent?.close();
    await server?.stop();
  });

  it('the shell it held back runs to its end once its socket closes', async () => {
    const holder = await Viewer.open(server.info);
    holder.send({ t: 'term_attach', seat: SEAT, cols: 100, rows: 30 });
    await holder.until(() => holder.frames.some((f) => f.flags & 1), 15_000, 'the repaint');
    const term = holder.frames[0]!.id;
    holder.send({ t: 'term_control', term, take: true });
    await holder.until(() => holder.message('term_state')?.role === 'holder', 5000, 'the keyboard');
    holder.ackBytes = false;
    const start = holder.frames.reduce((n, f) => n + f.bytes.byteLength, 0);
    holder.send({ t: 'term_input', term, data: `seq 1 ${LAST}\r` });
    await new Promise((r) => setTimeout(r, 2000));
    // Held at the holder's bound (512 KiB) plus what was in flight, not the whole flood.
    expect(holder.frames.reduce((n, f) => n + f.bytes.byteLength, 0) - start).toBeLessThan(2 * 1024 * 1024);

    holder.close();
    const waited = await agent.callTool({ name: 'terminal__wait', arguments: { until: 'done', timeout_ms: 45_000 } }, undefined, { timeout: 60_000 });
    expect(waited.isError, JSON.stringify(waited.content)).toBeFalsy();
    expect((waited.structuredContent as { done: boolean }).done).toBe(true);
    const read = await agent.callTool({ name: 'terminal__read', arguments: {} });
    expect((read.structuredContent as { text: string }).text).toContain(String(LAST));
  });
});
