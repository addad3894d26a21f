/** A real nats-server (JetStream on) for the cluster tests: a free loopback port, a temp store, an auth token. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { natsUsers } from '../../src/main/cluster/nats-users.js';

export interface RunningNats {
  url: string; token: string; proc: ChildProcess; output: () => string; stop: () => Promise<void>;
  /** Stops the server (SIGTERM) and keeps its port and store, so `start` brings the same one back. */
  pause: () => Promise<void>;
  start: () => Promise<void>;
  /** With `users`: each node's NATS password, its user named after it. */
  passwords?: Record<string, string>;
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

/**
 * `users`: one NATS user per node, named after it, held by forge's own per-node permissions
 * (natsPermissions, through the block `forge cluster users` prints), in place of the shared token.
 * `authorization`: the server's authorization block as given (an operator's own), in place of both.
 */
export async function startNats(opts: { users?: string[]; authorization?: string } = {}): Promise<RunningNats> {
  const dir = mkdtempSync(join(tmpdir(), 'forge-nats-'));
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  // max_payload: a full-viewport keyframe fits one message.
  // The users as `forge cluster users` makes them for an operator.
  const users = opts.users ? natsUsers(opts.users) : undefined;
  const passwords = users?.passwords;
  const auth = opts.authorization ?? (users ? users.natsConf : `authorization { token: "${token}" }`);
  writeFileSync(join(dir, 'nats.conf'), `host: 127.0.0.1\nport: ${port}\nmax_payload: 4MB\njetstream { store_dir: "${join(dir, 'store')}" }\n${auth}\n`);
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
  return { url: `nats://127.0.0.1:${port}`, token, get proc() { return proc; }, output: () => out, stop, pause, start, ...(passwords ? { passwords } : {}) };
}

/** A forge.toml for node `node` of the cluster on `nats`. */
export function clusterToml(nats: RunningNats, node: string, roles?: string[]): string {
  const auth = nats.passwords ? `user = "${node}"\npassword = "${nats.passwords[node]}"` : `token = "${nats.token}"`;
  return `[cluster]\nnats = "${nats.url}"\nnode = "${node}"\n${auth}\n${roles ? `roles = [${roles.map((r) => `"${r}"`).join(', ')}]\n` : ''}`;
}

/** The permission errors nats-server reports to `nc` within `ms` of `act`. */
export async function violations(nc: import('@nats-io/transport-node').NatsConnection, act: () => void | Promise<void>, ms = 1_500): Promise<string[]> {
  const seen: string[] = [];
  void (async () => { for await (const s of nc.status()) if (s.type === 'error') seen.push(String((s as { error?: Error }).error?.message ?? '')); })();
  await act();
  await new Promise((r) => setTimeout(r, ms));
  return seen;
}

/** The permission errors NATS reports to `nc` while `act` runs and for `ms` after, one a line. */
export async function permissionErrors(nc: NatsConnection, act: () => void, ms = 1_500): Promise<string> {
  const seen: string[] = [];
  void (async () => { for await (const s of nc.status()) if (s.type === 'error') seen.push(String((s as { error?: Error }).error?.message ?? '')); })();
  act();
  await new Promise((r) => setTimeout(r, ms));
  return seen.join('\n');
}
