/**
 * A shell that ends while an agent's terminal__run or terminal__wait is on it (`exit`, a kill)
 * answers that call at once with how the shell ended: never "still running" or "not yet" after the
 * call's whole timeout, since nothing is left to wait for. And a wait until "done" gives the
 * output of the command it waited for, as a run does.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

const SEAT = 'default/proj/lead';
/** Far longer than any of these calls' answers take: an answer that used it up is the fault. */
const LONG_MS = 60_000;

type Run = { output: string; exit_code: number | null; timed_out?: boolean; shell_exited?: { code: number; signal: number | null } };
type Wait = { done: boolean; output?: string; exit_code?: number | null; timed_out?: boolean; shell_exited?: { code: number; signal: number | null } };

const it = forgeTest();

describe('a shell that ends under an agent\'s call', () => {
  let agent: Agent;

  it.beforeAll(async ({ agentFor }) => {
    agent = await agentFor(SEAT);
  });

  it('a run whose command exits the shell answers with the shell\'s exit code and its output, and the next run has a fresh terminal', async () => {
    const first = await agent.call('terminal__run', { command: 'echo ready' });
    expect((first.structured as Run).output).toBe('ready');
    const res = await agent.call('terminal__run', { command: 'echo bye; exit 3', timeout_ms: LONG_MS });
    expect(res.isError, res.text).toBeFalsy();
    const s = res.structured as Run;
    expect(s.shell_exited).toEqual({ code: 3, signal: null });
    expect(s.exit_code).toBe(3);
    expect(s.timed_out).toBeUndefined();
    expect(s.output).toContain('bye');
    expect(res.text).toMatch(/^the shell exited \(exit code 3\), so terminal \d+ has ended; your next terminal call starts a fresh one/);
    expect(res.text).not.toMatch(/still running/);

    const next = await agent.call('terminal__run', { command: 'echo back' });
    expect(next.structured).toMatchObject({ output: 'back', exit_code: 0 });
  });

  it('a wait until done on a command that exits the shell says the shell exited, not "not yet"', async () => {
    await agent.call('terminal__run', { command: 'echo ready' });
    await agent.call('terminal__write', { text: 'sleep 0.5; exit 4', keys: ['Enter'] });
    const res = await agent.call('terminal__wait', { until: 'done', timeout_ms: LONG_MS });
    expect(res.isError, res.text).toBeFalsy();
    const s = res.structured as Wait;
    expect(s.shell_exited).toEqual({ code: 4, signal: null });
    expect(s.timed_out).toBeUndefined();
    expect(res.text).toMatch(/^the shell exited \(exit code 4\)/);
  });

  it('a wait for text on a shell that is killed names the signal that ended it, in the words its viewer is told too', async ({ forge }) => {
    await agent.call('terminal__run', { command: 'echo ready' });
    const { Viewer } = await import('./helpers/term-viewer.js');
    const v = await Viewer.open(forge.info);
    v.send({ t: 'term_attach', seat: SEAT, cols: 80, rows: 24 });
    await v.until(() => v.message('term_view'), 10_000, 'term_view');
    await agent.call('terminal__write', { text: '(sleep 0.5; kill -KILL $$) &', keys: ['Enter'] });
    const res = await agent.call('terminal__wait', { until: 'text', text: 'text-that-never-shows', timeout_ms: LONG_MS });
    expect(res.isError, res.text).toBeFalsy();
    const s = res.structured as Wait;
    expect(s.shell_exited?.signal).toBe(9);
    expect(s.exit_code).toBeNull();
    expect(res.text).toMatch(/^the shell was killed by signal 9 \(SIGKILL\), so terminal \d+ has ended/);
    const closed = await v.until(() => v.message('term_closed'), 10_000, 'term_closed');
    expect(closed.message).toMatch(/^the shell was killed by signal 9 \(SIGKILL\)/);
    v.close();
  });

  it('a wait until done after a run that timed out gives the command\'s output and exit code', async () => {
    await agent.call('terminal__run', { command: 'echo ready' });
    const run = await agent.call('terminal__run', { command: 'sleep 1; echo slept-well; false', timeout_ms: 200 });
    expect((run.structured as Run).timed_out).toBe(true);
    const res = await agent.call('terminal__wait', { until: 'done', timeout_ms: LONG_MS });
    const s = res.structured as Wait;
    expect(s).toMatchObject({ done: true, exit_code: 1, output: 'slept-well' });
    expect(res.text).toMatch(/^done \(exit code 1\) · source osc133\nslept-well$/);
  });
});
