/**
 * A seat's terminal starts in the seat's own tree: the working directory its MCP session named
 * (a worker's git worktree), else the project directory the server runs in.
 */
import { describe, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

async function pwd(agent: Client): Promise<string> {
  const res = await agent.callTool({ name: 'terminal__run', arguments: { command: 'pwd -P' } });
  expect(res.isError).toBeFalsy();
  return (res.structuredContent as { output: string }).output.trim();
}

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' });

describe('terminal working directory', () => {
  let repo: string;
  let worktree: string;
  /** Sessions that name a directory, opened by hand (`agentFor` names none). */
  const clients: Client[] = [];

  it.beforeAll(() => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'forge-cwd-test-')));
    repo = join(root, 'repo');
    worktree = join(root, 'repo-worker');
    const git = (...args: string[]): void => { execFileSync('git', args, { cwd: root, stdio: 'ignore' }); };
    git('init', '-q', repo);
    writeFileSync(join(repo, 'README'), 'project\n');
    git('-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start');
    git('-C', repo, 'worktree', 'add', '-q', '-b', 'worker', worktree);
  });
  it.afterAll(async () => {
    for (const c of clients) await c.close();
    if (repo) rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('a worker seat whose session names its git worktree runs its terminal there', async ({ forge }) => {
    const agent = await mcpClient(forge.info, 'default/proj/worker-1', worktree);
    clients.push(agent);
    expect(await pwd(agent)).toBe(worktree);
    const branch = await agent.callTool({ name: 'terminal__run', arguments: { command: 'git rev-parse --abbrev-ref HEAD' } });
    expect((branch.structuredContent as { output: string }).output.trim()).toBe('worker');
  });

  it('a seat whose session names no directory runs in the project directory', async ({ agentFor }) => {
    const agent = await agentFor('default/proj/lead');
    expect(await pwd(agent.client)).toBe(realpathSync(process.cwd()));
  });

  it('the seat keeps its terminal and its directory when a later session of it names another', async ({ forge }) => {
    const again = await mcpClient(forge.info, 'default/proj/worker-1', repo);
    clients.push(again);
    expect(await pwd(again)).toBe(worktree);
  });

  it('a directory that does not exist is refused in words and opens nothing', async ({ forge }) => {
    await expect(mcpClient(forge.info, 'default/proj/worker-2', join(worktree, 'no-such-dir'))).rejects.toThrow(/is not a directory/);
    await expect(mcpClient(forge.info, 'default/proj/worker-2', 'relative/dir')).rejects.toThrow(/absolute path/);
  });
});
