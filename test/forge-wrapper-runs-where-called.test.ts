/**
 * `./forge` builds in its own checkout, but serve, mcp and token run where the user called it:
 * `./forge.toml` and a relative --state or --config are the caller's, and an agent configured with
 * `/path/to/forge mcp --seat …` gets its seat's terminal in the directory the agent runs in, not
 * in forge's checkout.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** forge's own entry, as a user's configuration names it: by its full path. */
const FORGE = join(process.cwd(), 'forge');
/** Bound on a server's start through the wrapper, ms (the wrapper's checks add well under a second). */
const START_WITHIN_MS = 30_000;

const dirs: string[] = [];
const newDir = (): string => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'forge-test-caller-')));
  dirs.push(d);
  return d;
};

/** Stops the server a state dir's server.json names, and waits until it is gone. */
async function stopServerOf(stateDir: string): Promise<void> {
  if (!existsSync(join(stateDir, 'server.json'))) return;
  const { pid } = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as { pid: number };
  try { process.kill(pid, 'SIGTERM'); } catch { return; }
  const end = Date.now() + 8_000;
  while (Date.now() < end) {
    try { process.kill(pid, 0); } catch { return; }
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(async () => {
  for (const d of dirs) {
    await stopServerOf(join(d, 'state'));
    rmSync(d, { recursive: true, force: true });
  }
});

describe('./forge called from another directory', () => {
  it('serve reads the caller\'s ./forge.toml and keeps a relative --state in the caller\'s directory', async () => {
    const dir = newDir();
    writeFileSync(join(dir, 'forge.toml'), '[org]\nname = "callers-org"\n');
    const proc = spawn(FORGE, ['serve', '--state', 'state', '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const served = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), START_WITHIN_MS);
      const read = (d: Buffer): void => {
        output += d.toString();
        if (/ {2}mcp: +http/.test(output)) { clearTimeout(t); resolve(true); }
      };
      proc.stdout.on('data', read);
      proc.stderr.on('data', read);
      proc.once('exit', () => { clearTimeout(t); resolve(false); });
    });
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGINT');
    await exited;
    expect(served, output).toBe(true);
    expect(output).toContain('forge is serving callers-org (config: forge.toml)');
    expect(output).toContain(join(dir, 'state', 'server.json'));
  });

  it('an agent\'s `forge mcp` gives its seat\'s terminal the directory the agent runs in', async () => {
    const dir = newDir();
    const client = new Client({ name: 'wrapper-test', version: '0' });
    await client.connect(new StdioClientTransport({
      command: FORGE, args: ['mcp', '--seat', 'default/wrapped/lead', '--state', 'state', '--port', '0'], cwd: dir, stderr: 'pipe',
    }));
    try {
      const r = await client.callTool({ name: 'terminal__run', arguments: { command: 'pwd' } });
      expect((r.structuredContent as { output: string }).output).toBe(dir);
    } finally {
      await client.close();
    }
    expect(existsSync(join(dir, 'state', 'server.json'))).toBe(true);
  });
});
