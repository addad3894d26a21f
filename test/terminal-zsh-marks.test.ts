/**
 * zsh gets forge's prompt marks as bash does, without a word written to the user's own files:
 * terminal__run answers exactly (output and exit code, through OSC 133), the user's own .zshenv
 * and .zshrc are read first (their alias and prompt stand), and their files are left as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startForge, mcpClient, type RunningServer } from './helpers/server.js';

type Structured = { output: string; exit_code: number | null; source: string };

const ZSHENV = 'export FORGE_TEST_FROM_ZSHENV=read\n';
const ZSHRC = "alias hello='echo hello-from-the-users-zshrc'\nPS1='mine%# '\n";

describe('prompt marks in zsh', () => {
  let server: RunningServer;
  let agent: Client;
  let home = '';
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'forge-zdotdir-'));
    writeFileSync(join(home, '.zshenv'), ZSHENV);
    writeFileSync(join(home, '.zshrc'), ZSHRC);
    server = await startForge({ toml: '[terminal]\nshell = "/usr/bin/zsh"\n', env: { ZDOTDIR: home } });
    agent = await mcpClient(server.info);
  });
  afterAll(async () => {
    await agent?.close();
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('returns a command\'s output and its exit code exactly through the marks', async () => {
    const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo hi; false' } });
    expect(res.structuredContent as Structured).toMatchObject({ output: 'hi', exit_code: 1, source: 'osc133' });
    const ok = await agent.callTool({ name: 'terminal__run', arguments: { command: 'print -r -- "$((6*7))"' } });
    expect(ok.structuredContent as Structured).toMatchObject({ output: '42', exit_code: 0, source: 'osc133' });
  });

  it('reads the user\'s own .zshenv and .zshrc first: their alias and prompt stand', async () => {
    const alias = await agent.callTool({ name: 'terminal__run', arguments: { command: 'hello; echo "$FORGE_TEST_FROM_ZSHENV"' } });
    expect(alias.structuredContent as Structured).toMatchObject({ output: 'hello-from-the-users-zshrc\nread', exit_code: 0 });
    const screen = await agent.callTool({ name: 'terminal__read', arguments: {} });
    const s = screen.structuredContent as { text: string; state: { source: string } };
    expect(s.text.split('\n').pop()).toMatch(/^mine# ?$/);
    expect(s.state.source).toBe('osc133');
  });

  it('waits for a running command to be done through the marks', async () => {
    await agent.callTool({ name: 'terminal__write', arguments: { text: 'sleep 0.3; echo slept', keys: ['Enter'] } });
    const wait = await agent.callTool({ name: 'terminal__wait', arguments: { until: 'done', timeout_ms: 10_000 } });
    expect((wait.structuredContent as { state: { source: string } }).state.source).toBe('osc133');
    const screen = await agent.callTool({ name: 'terminal__read', arguments: {} });
    expect((screen.structuredContent as { text: string }).text).toMatch(/\nslept\n/);
  });

  it('leaves the user\'s own files as they were', () => {
    expect(readdirSync(home).sort()).toEqual(['.zshenv', '.zshrc']);
    expect(readFileSync(join(home, '.zshenv'), 'utf8')).toBe(ZSHENV);
    expect(readFileSync(join(home, '.zshrc'), 'utf8')).toBe(ZSHRC);
  });
});
