/** A real nats-server (JetStream on) for the cluster tests: a free loopback port, a temp store, an auth token. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface RunningNats {
  url: string; token: string; proc: ChildProcess; output: () => string; stop: () => Promise<void>;
  /** Stops the server (SIGTERM) and keeps its port and store, so `start` brings the same one back. */
  pause: () => Promise<void>;
  start: () => Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => { c.destroy(); resolve(true); });
    c.once('error', () => resolve(false));
  });
}

export async function startNats(): Promise<RunningNats> {
  const dir = mkdtempSync(join(tmpdir(), 'forge-nats-'));
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  // max_payload: a full-viewport keyframe fits one message.
  writeFileSync(join(dir, 'nats.conf'), `host: 127.0.0.1\nport: ${port}\nmax_payload: 4MB\njetstream { store_dir: "${join(dir, 'store')}" }\nauthorization { token: "${token}" }\n`);
  let proc!: ChildProcess;
  let out = '';
  const start = async (): Promise<void> => {
    proc = spawn('nats-server', ['-c', join(dir, 'nats.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    const deadline = Date.now() + 10_000;
    while (!(await accepting(port))) {
      if (proc.exitCode !== null) throw new Error(`nats-server exited (${proc.exitCode}):\n${out}`);
      if (Date.now() > deadline) { proc.kill('SIGKILL'); throw new Error(`nats-server did not listen within 10 s:\n${out}`); }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const pause = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
  };
  await start();
  const stop = async (): Promise<void> => {
    await pause();
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `nats://127.0.0.1:${port}`, token, get proc() { return proc; }, output: () => out, stop, pause, start };
}

/** A forge.toml for node `node` of the cluster on `nats`. */
export function clusterToml(nats: RunningNats, node: string, roles?: string[]): string {
  return `[cluster]\nnats = "${nats.url}"\nnode = "${node}"\ntoken = "${nats.token}"\n${roles ? `roles = [${roles.map((r) => `"${r}"`).join(', ')}]\n` : ''}`;
}
