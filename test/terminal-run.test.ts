import { describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { forgeTest } from './fixtures.js';

type Structured = { output: string; exit_code: number | null; source: string };

const SEAT = 'default/proj/lead';

const it = forgeTest();
/** A server of its own whose shell draws no prompt marks. */
const withSh = forgeTest({ toml: '[terminal]\nshell = "/bin/sh"\n' });
/** A server of its own whose terminals close after 3 s unused. */
const shortIdle = forgeTest({ toml: '[terminal]\nidle_minutes = 0.05\n' });

describe('terminal__run', () => {
  let agent: Client;
  it.beforeAll(async ({ agentFor }) => {
    agent = (await agentFor(SEAT)).client;
  });

  it('returns a command\'s output and its exit code exactly through the shell\'s prompt marks', async () => {
    const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo hi; false' } });
    expect(res.isError).toBeFalsy();
    const s = res.structuredContent as Structured;
    expect(s).toMatchObject({ output: 'hi', exit_code: 1, source: 'osc133' });
  });

  it('a command whose output outgrew the scrollback returns its end and says it was cut', async () => {
    const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'seq 1 12000' } });
    const s = res.structuredContent as Structured & { cut?: boolean };
    expect(s.exit_code).toBe(0);
    expect(s.cut).toBe(true);
    expect(s.output.split('\n').pop()).toBe('12000');
    expect(s.output.split('\n').length).toBeGreaterThan(1000);
    expect(JSON.stringify(res.content)).toMatch(/longer than the terminal keeps/);
    await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo hi; false' } });
  });

  it('reads the screen with the command and its output on it', async () => {
    const res = await agent.callTool({ name: 'terminal__read', arguments: {} });
    const s = res.structuredContent as { text: string; state: { source: string } };
    expect(s.text).toContain('echo hi; false');
    expect(s.state.source).toBe('osc133');
  });
});

describe('terminal__run without prompt marks', () => {
  let agent: Client;
  withSh.beforeAll(async ({ agentFor }) => {
    agent = (await agentFor(SEAT)).client;
  });

  withSh('answers by the quiet-screen heuristic and says so', async () => {
    const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo hi; false' } });
    expect(res.isError).toBeFalsy();
    const s = res.structuredContent as Structured;
    expect(s.source).toBe('heuristic');
    expect(s.exit_code).toBeNull();
    expect(s.output).toBe('hi');
    const wait = await agent.callTool({ name: 'terminal__wait', arguments: { until: 'done', timeout_ms: 5000 } });
    expect((wait.structuredContent as { state: { source: string } }).state.source).toBe('heuristic');
  });
});

describe('terminal lifetime', () => {
  let agent: Client;
  shortIdle.beforeAll(async ({ agentFor }) => {
    agent = (await agentFor(SEAT)).client;
  });

  shortIdle('the shell exiting ends the terminal, its viewers are told, and the next call starts a fresh one', async ({ forge }) => {
    const { Viewer } = await import('./helpers/term-viewer.js');
    const first = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo $$' } });
    const pid1 = (first.structuredContent as Structured).output;
    const v = await Viewer.open(forge.info);
    v.send({ t: 'term_attach', seat: 'default/proj/lead', cols: 80, rows: 24 });
    await v.until(() => v.message('term_view'), 10_000, 'term_view');
    await agent.callTool({ name: 'terminal__write', arguments: { text: 'exit', keys: ['Enter'] } });
    const closed = await v.until(() => v.message('term_closed'), 10_000, 'term_closed');
    expect(closed.message).toMatch(/the shell exited \(exit code 0\)/);
    expect(v.message('term_state')?.state).toBe('the shell exited');
    v.close();
    const second = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo $$' } });
    expect((second.structuredContent as Structured).output).not.toBe(pid1);
  });

  shortIdle('a terminal nobody uses closes after idle_minutes and the strip row goes off', async ({ forge }) => {
    const { Viewer } = await import('./helpers/term-viewer.js');
    await agent.callTool({ name: 'terminal__run', arguments: { command: 'true' } });
    const v = await Viewer.open(forge.info); // a page with the strip open, not attached to the terminal
    const rows = await v.until(() => v.messages.find((m) => m.t === 'terminals' && (m.rows as unknown[]).length === 0), 15_000, 'the row to go');
    expect(rows).toBeTruthy();
    v.close();
  });
});
