/**
 * A second `forge serve` never shares what a running one serves: on its port it fails saying the
 * port is in use (the socket is bound alone, so the kernel never splits one port's connections
 * between two servers with different keys), and on its state directory it refuses naming the
 * running one. A server.json left by a server that is gone stops nobody.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';

/** Bound on a refused start, ms: a refusal comes before any browser or shell starts. */
const REFUSAL_WITHIN_MS = 30_000;
/** Requests sent to the first server after the second tried its port: with a shared port some would meet the second. */
const REQUESTS = 40;

const it = forgeTest();

interface Ended { code: number | null; output: string; pid: number }

/** Runs `forge serve` with `args` until it exits, or stops it at the bound and says so. */
function serve(args: string[]): Promise<Ended> {
  const proc = spawn(process.execPath, [join(process.cwd(), 'dist/src/main/cli.js'), 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  proc.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  return new Promise((resolve) => {
    const t = setTimeout(() => proc.kill('SIGINT'), REFUSAL_WITHIN_MS);
    proc.once('exit', (code) => { clearTimeout(t); resolve({ code, output, pid: proc.pid! }); });
  });
}

describe('a second forge serve', () => {
  it('on a port a server serves fails saying the port is in use, and the first answers every request after', async ({ forge }) => {
    const own = mkdtempSync(join(tmpdir(), 'forge-test-second-'));
    try {
      const second = await serve(['--state', own, '--port', String(forge.info.port)]);
      expect(second.code, second.output).toBe(1);
      expect(second.output).toMatch(new RegExp(`port ${forge.info.port} on 127\\.0\\.0\\.1 is in use or cannot be bound; serve on another with --port N`));
      expect(second.output).not.toMatch(/forge is serving/);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
    const statuses = await Promise.all(Array.from({ length: REQUESTS }, () =>
      fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}`, connection: 'close' } }).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('on a state directory a server serves refuses, naming the running server, and leaves its server.json alone', async ({ forge }) => {
    const second = await serve(['--state', forge.stateDir, '--port', '0']);
    expect(second.code, second.output).toBe(1);
    expect(second.output).toContain(`forge: another forge server already serves ${forge.stateDir} (pid ${forge.info.pid}, port ${forge.info.port})`);
    const res = await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } });
    expect(res.status).toBe(200);
  });

  it('two started at once on one state directory: exactly one serves it, the other refuses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forge-test-race-'));
    try {
      const runs = [0, 1].map(() => {
        const proc = spawn(process.execPath, [join(process.cwd(), 'dist/src/main/cli.js'), 'serve', '--state', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        const ended = new Promise<{ code: number | null; output: string }>((resolve) => {
          const t = setTimeout(() => proc.kill('SIGINT'), REFUSAL_WITHIN_MS);
          const read = (d: Buffer): void => {
            output += d.toString();
            // The one that serves is stopped once both have had their say.
            if (/forge is serving/.test(output)) void refused.then(() => proc.kill('SIGINT'));
          };
          proc.stdout.on('data', read);
          proc.stderr.on('data', read);
          proc.once('exit', (code) => { clearTimeout(t); resolve({ code, output }); });
        });
        return { proc, ended };
      });
      let told!: () => void;
      const refused = new Promise<void>((r) => { told = r; });
      for (const r of runs) void r.ended.then((e) => { if (e.code === 1) told(); });
      const [a, b] = await Promise.all(runs.map((r) => r.ended));
      const served = [a!, b!].filter((e) => /forge is serving/.test(e.output));
      const refusals = [a!, b!].filter((e) => /another forge server already serves/.test(e.output));
      expect(served.length, `${a!.output}\n${b!.output}`).toBe(1);
      expect(refusals.length).toBe(1);
      expect(refusals[0]!.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on a state directory whose server.json and claim name a process that is not a forge server (a killed server\'s pid, reused) starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forge-test-stale-'));
    // A live process that is no forge server: what a pid left by a killed server may have become.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'server.json'), JSON.stringify({ pid: other.pid, port: 1, viewer_url: '', mcp_url: '', token: '', viewer_token: '' }));
      writeFileSync(join(dir, 'serve.pid'), `${other.pid}\n`);
      const started = await new Promise<string>((resolve) => {
        const proc = spawn(process.execPath, [join(process.cwd(), 'dist/src/main/cli.js'), 'serve', '--state', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        const t = setTimeout(() => proc.kill('SIGINT'), REFUSAL_WITHIN_MS);
        const read = (d: Buffer): void => {
          output += d.toString();
          if (/forge is serving/.test(output)) proc.kill('SIGINT');
        };
        proc.stdout.on('data', read);
        proc.stderr.on('data', read);
        proc.once('exit', () => { clearTimeout(t); resolve(output); });
      });
      expect(started).toMatch(/forge is serving/);
    } finally {
      other.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
