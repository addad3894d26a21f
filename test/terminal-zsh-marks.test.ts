/**
 * zsh gets forge's prompt marks as bash does, without a word written to the user's own files:
 * terminal__run answers exactly (output and exit code, through OSC 133), the user's own .zshenv
 * and .zshrc are read first (their alias and prompt stand), and their files are left as they were.
 */
import { describe, expect } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

type Structured = { output: string; exit_code: number | null; source: string };

const ZSHENV = 'export FORGE_TEST_FROM_ZSHENV=read\n';
const ZSHRC = "alias hello='echo hello-from-the-users-zshrc'\nPS1='mine%# '\n";

/** The user's own zsh files, in place before the server (and its shells) start. */
const home = mkdtempSync(join(tmpdir(), 'forge-zdotdir-'));
writeFileSync(join(home, '.zshenv'), ZSHENV);
writeFileSync(join(home, '.zshrc'), ZSHRC);

const it = forgeTest({ toml: '[terminal]\nshell = "/usr/bin/zsh"\n', env: { ZDOTDIR: home } });

describe('prompt marks in zsh', () => {
  let agent: Agent;
  it.beforeAll(async ({ agentFor }) => {
    agent = await agentFor('default/proj/lead');
  });
  it.afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('returns a command\'s output and its exit code exactly through the marks', async () => {
    const res = await agent.call('terminal__run', { command: 'echo hi; false' });
    expect(res.structured as Structured).toMatchObject({ output: 'hi', exit_code: 1, source: 'osc133' });
    const ok = await agent.call('terminal__run', { command: 'print -r -- "$((6*7))"' });
    expect(ok.structured as Structured).toMatchObject({ output: '42', exit_code: 0, source: 'osc133' });
  });

  it('reads the user\'s own .zshenv and .zshrc first: their alias and prompt stand', async () => {
    const alias = await agent.call('terminal__run', { command: 'hello; echo "$FORGE_TEST_FROM_ZSHENV"' });
    expect(alias.structured as Structured).toMatchObject({ output: 'hello-from-the-users-zshrc\nread', exit_code: 0 });
    const screen = await agent.call('terminal__read', {});
    const s = screen.structured as { text: string; state: { source: string } };
    expect(s.text.split('\n').pop()).toMatch(/^mine# ?$/);
    expect(s.state.source).toBe('osc133');
  });

  it('waits for a running command to be done through the marks', async () => {
    await agent.call('terminal__write', { text: 'sleep 0.3; echo slept', keys: ['Enter'] });
    const wait = await agent.call('terminal__wait', { until: 'done', timeout_ms: 10_000 });
    expect((wait.structured as { state: { source: string } }).state.source).toBe('osc133');
    const screen = await agent.call('terminal__read', {});
    expect((screen.structured as { text: string }).text).toMatch(/\nslept\n/);
  });

  it('leaves the user\'s own files as they were', () => {
    expect(readdirSync(home).sort()).toEqual(['.zshenv', '.zshrc']);
    expect(readFileSync(join(home, '.zshenv'), 'utf8')).toBe(ZSHENV);
    expect(readFileSync(join(home, '.zshrc'), 'utf8')).toBe(ZSHRC);
  });
});
