import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startServer, mcpClient, type RunningServer } from './helpers/terminal-server.js';

type Structured = { output: string; exit_code: number | null; source: string };

describe('terminal__run', () => {
  let server: RunningServer;
  let agent: Client;
  beforeAll(async () => {
    server = await startServer();
    agent = await mcpClient(server.info);
  });
  afterAll(async () => {
    await agent?.close();
    await server?.stop();
  });

  it('returns a command\'s output and its exit code exactly through the shell\'s prompt marks', async () => {
    const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo hi; false' } });
    expect(res.isError).toBeFalsy();
    const s = res.structuredContent as Structured;
    expect(s).toMatchObject({ output: 'hi', exit_code: 1, source: 'osc133' });
  });

  it('reads the screen with the command and its output on it', async () => {
    const res = await agent.callTool({ name: 'terminal__read', arguments: {} });
    const s = res.structuredContent as { text: string; state: { source: string } };
    expect(s.text).toContain('echo hi; false');
    expect(s.state.source).toBe('osc133');
  });
});

describe('terminal__run without prompt marks', () => {
  let server: RunningServer;
  let agent: Client;
  beforeAll(async () => {
    server = await startServer('[terminal]\nshell = "/bin/sh"\n');
    agent = await mcpClient(server.info);
  });
  afterAll(async () => {
    await agent?.close();
    await server?.stop();
  });

  it('answers by the quiet-screen heuristic and says so', async () => {
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
