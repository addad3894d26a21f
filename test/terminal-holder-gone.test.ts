/**
 * A shell held back for a keyboard holder that stopped acknowledging runs on once that holder's
 * socket closes: the hold is the holder's, and it goes with it.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';

const SEAT = 'default/proj/lead';
/** ~15 MB of numbered lines: far past the holder's backlog bound, so the shell is held. */
const LAST = 2_000_000;

const it = forgeTest();

describe('a lagging holder that leaves', () => {
  let agent: Agent;

  it.beforeAll(async ({ agentFor }) => {
    agent = await agentFor(SEAT);
    await agent.call('terminal__run', { command: 'echo ready' });
  });

  it('the shell it held back runs to its end once its socket closes', async ({ forge }) => {
    const holder = await Viewer.open(forge.info);
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
    const waited = await agent.call('terminal__wait', { until: 'done', timeout_ms: 45_000 });
    expect(waited.isError, waited.text).toBeFalsy();
    expect((waited.structured as { done: boolean }).done).toBe(true);
    const read = await agent.call('terminal__read', {});
    expect((read.structured as { text: string }).text).toContain(String(LAST));
  });
});
