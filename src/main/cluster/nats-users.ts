/**
 * One NATS user per node, ready to paste: the nats-server `authorization` block that holds each
 * node to its own subjects (natsPermissions), and each node's `[cluster]` lines (without `nats =`,
 * which the operator knows). With the shared
 * token every node holds the same credential and NATS enforces nothing between them; with these
 * users nats-server refuses a node that speaks for another or reads what is meant for another.
 */
import { randomBytes } from 'node:crypto';
import { ForgeError } from '../../shared/errors.js';
import { NODE_NAME_RE, natsPermissions } from './protocol.js';

/** Random bytes in each node's password: 144 bits, past any guessing over the network. */
export const NATS_PASSWORD_BYTES = 18;

export interface NatsUsers {
  /** The nats-server config block, one user per node named after it. */
  natsConf: string;
  /** Each node's password, by node (its user is named after it). */
  passwords: Record<string, string>;
}

/** The users for `nodes`; a name no subject can carry, or one given twice, is refused in words. */
export function natsUsers(nodes: readonly string[]): NatsUsers {
  if (nodes.length === 0) throw new ForgeError('bad_request', 'name the nodes: forge cluster users NODE [NODE …]');
  const seen = new Set<string>();
  for (const node of nodes) {
    if (!NODE_NAME_RE.test(node)) throw new ForgeError('bad_request', `"${node.slice(0, 64)}" is not a valid node name (letters, digits, _ -)`);
    if (seen.has(node)) throw new ForgeError('bad_request', `node ${node} is named twice`);
    seen.add(node);
  }
  const passwords = nodes.map((node) => [node, randomBytes(NATS_PASSWORD_BYTES).toString('base64url')] as const);
  const entries = passwords.map(([user, password]) => `    ${JSON.stringify({ user, password, permissions: natsPermissions(user) })}`);
  const natsConf = `authorization {\n  users = [\n${entries.join(',\n')}\n  ]\n}\n`;
  return { natsConf, passwords: Object.fromEntries(passwords) };
}

/** What `forge cluster users` prints: the nats.conf block, then each node's lines, each under its heading. */
export function natsUsersText(users: NatsUsers): string {
  const parts = [
    '# nats.conf: in place of any authorization block; each node\'s user may publish and subscribe only to its own subjects',
    users.natsConf,
  ];
  for (const [node, password] of Object.entries(users.passwords)) {
    parts.push(`# ${node}'s forge.toml (with its nats = "nats://…" and roles)`, `[cluster]\nnode = "${node}"\nuser = "${node}"\npassword = "${password}"\n`);
  }
  return parts.join('\n');
}
