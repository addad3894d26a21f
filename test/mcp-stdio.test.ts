import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const stateDir = mkdtempSync(join(tmpdir(), 'forge-stdio-'));

afterAll(async () => {
  try {
    const { pid } = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGTERM');
    const end = Date.now() + 5000;
    while (Date.now() < end) { try { process.kill(pid, 0); } catch { break; } await new Promise((r) => setTimeout(r, 100)); }
  } catch { /* no server */ }
  rmSync(stateDir, { recursive: true, force: true });
});

describe('forge mcp over stdio', () => {
  it('an agent configured with a command line reaches the server, which starts in the background when none runs', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/src/main/cli.js', 'mcp', '--seat', 'default/stdio/lead', '--state', stateDir, '--port', '0'],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '0' });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('browser_navigate');
    const r = await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } });
    expect((r.content as Array<{ text: string }>)[0].text).toContain('### Tabs');
    await client.close();
    const info = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as { pid: number };
    expect(info.pid).toBeGreaterThan(0);
  });
});
