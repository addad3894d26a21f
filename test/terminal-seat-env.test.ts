/**
 * The seat's terminal carries its agent's environment: `forge mcp` sends its own (a PATH with the
 * agent's tools first, a virtualenv) and the seat's shell starts with it; forge's own variables
 * stay forge's.
 */
import { describe, expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { forgeTest } from './fixtures.js';

let tools: string;
let client: Client;

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' });

// The agent is `forge mcp` over stdio, run with the environment an agent would give it.
it.beforeAll(async ({ forge }) => {
  tools = mkdtempSync(join(tmpdir(), 'forge-agent-bin-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { PATH: `${tools}:${process.env.PATH}`, VIRTUAL_ENV: join(tools, 'venv'), FORGE_PROBE_SECRET: 'not-for-the-shell' });
  client = new Client({ name: 'seat-env-test', version: '0' });
  await client.connect(new StdioClientTransport({
    command: process.execPath,
    args: ['dist/src/main/cli.js', 'mcp', '--seat', 'default/envs/lead', '--state', forge.stateDir],
    env,
    stderr: 'pipe',
  }));
});

it.afterAll(async () => {
  await client?.close();
  rmSync(tools, { recursive: true, force: true });
});

async function run(command: string): Promise<string> {
  const r = await client.callTool({ name: 'terminal__run', arguments: { command } });
  expect(r.isError).toBeFalsy();
  return (r.structuredContent as { output: string }).output.trim();
}

describe('the seat\'s shell starts with its agent\'s environment', () => {
  it('the PATH forge mcp runs with reaches the seat\'s shell, its virtualenv too, and forge\'s own variables do not', async () => {
    // The shell's own startup files may put their directories in front; the agent's is there.
    expect((await run('echo $PATH')).split(':')).toContain(tools);
    expect(await run('echo "$VIRTUAL_ENV"')).toBe(join(tools, 'venv'));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, for the shell
    expect(await run('echo "[${FORGE_PROBE_SECRET:-}]"')).toBe('[]');
  });
});
