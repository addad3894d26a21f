/**
 * `forge cluster users NODE…` prints what an operator pastes to give each node its own NATS user:
 * the nats.conf block and each node's [cluster] lines. Fed to a real nats-server as printed, each
 * node's credential speaks as that node and is refused as another; a node left on the shared token
 * says at start that NATS holds it to nothing.
 */
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { parseConfig } from '../src/main/config.js';
import { SHARED_CREDENTIAL_WARNING } from '../src/main/cluster/node.js';
import { startCluster } from './helpers/cluster.js';
import { permissionErrors, startNats } from './helpers/nats.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '..', 'dist', 'src', 'main', 'cli.js');

async function forgeCluster(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'cluster', ...args]);
    return { stdout, stderr, code: 0 };
  } catch (e) {
    const err = e as { stdout: string; stderr: string; code: number };
    return { stdout: err.stdout, stderr: err.stderr, code: err.code };
  }
}

/** The printed block for nats.conf, and each node's lines, by their headings. */
function sections(printed: string): { natsConf: string; nodes: Record<string, string> } {
  const parts = printed.split(/^# /m).filter(Boolean);
  const natsConf = parts.find((p) => p.startsWith('nats.conf'))!.split('\n').slice(1).join('\n');
  const nodes: Record<string, string> = {};
  for (const p of parts) {
    const m = /^(\S+)'s forge.toml/.exec(p);
    if (m) nodes[m[1]!] = p.split('\n').slice(1).join('\n');
  }
  return { natsConf, nodes };
}

describe('forge cluster users', () => {
  it('the printed users, pasted into a real nats-server, let each node speak as itself and refuse it as another', async () => {
    const out = await forgeCluster('users', 'web-1', 'web-2');
    expect(out.code).toBe(0);
    const { natsConf, nodes } = sections(out.stdout);
    expect(Object.keys(nodes)).toEqual(['web-1', 'web-2']);
    const nats = await startNats({ authorization: natsConf });
    try {
      // Each node's lines are a [cluster] table forge takes, once it has its nats URL.
      const creds = Object.fromEntries(Object.entries(nodes).map(([node, toml]) => {
        const cluster = parseConfig(toml.replace('[cluster]\n', `[cluster]\nnats = "${nats.url}"\n`), `${node}.toml`).cluster!;
        expect(cluster.node).toBe(node);
        return [node, { user: cluster.user!, pass: cluster.password! }];
      }));
      expect(creds['web-1']!.pass).not.toBe(creds['web-2']!.pass);
      const nc = await connect({ servers: nats.url, ...creds['web-1']! });
      try {
        const text = await permissionErrors(nc, () => {
          nc.publish('forge.presence.web-1');
          nc.publish('forge.presence.web-2');
          nc.subscribe('forge.term.web-2.*');
        });
        expect(text).toContain('forge.presence.web-2');
        expect(text).toContain('forge.term.web-2.*');
        expect(text).not.toContain('forge.presence.web-1');
      } finally {
        await nc.close();
      }
      // A wrong password is not let in.
      await expect(connect({ servers: nats.url, user: 'web-1', pass: creds['web-2']!.pass })).rejects.toThrow(/auth/i);
    } finally {
      await nats.stop();
    }
  });

  it('a node name no subject can carry, a name given twice, or none, is refused in words', async () => {
    const dotted = await forgeCluster('users', 'web.1');
    expect(dotted.code).not.toBe(0);
    expect(dotted.stderr).toContain('"web.1" is not a valid node name (letters, digits, _ -)');
    const twice = await forgeCluster('users', 'a', 'a');
    expect(twice.stderr).toContain('node a is named twice');
    const none = await forgeCluster('users');
    expect(none.stderr).toContain('name the nodes: forge cluster users NODE');
  });

  it('a node on the shared token says at start that NATS holds it to nothing, and a node with its own user does not', async () => {
    const shared = await startCluster(['solo']);
    try {
      expect(shared.nodes.solo.output()).toContain(SHARED_CREDENTIAL_WARNING);
    } finally {
      await shared.stop();
    }
    const own = await startCluster(['solo'], { users: true });
    try {
      expect(own.nodes.solo.output()).toContain('joined the cluster');
      expect(own.nodes.solo.output()).not.toContain(SHARED_CREDENTIAL_WARNING);
    } finally {
      await own.stop();
    }
  });
});
