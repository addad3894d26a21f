/**
 * `forge token new | list | revoke`: a deployment's credentials. A person's token opens the
 * viewer (watch or control; the org, some seats, or one tab); an agent key (`--agent`) opens MCP,
 * optionally for some seats only. The secret is printed once; the state dir keeps its hash.
 */
import { parseArgs } from 'node:util';
import { readServerInfo, resolveStateDir } from './state.js';
import { describeToken, newToken, readTokens, revokeToken } from './tokens.js';
import { ForgeError } from '../shared/errors.js';

const USAGE = [
  'forge token new [--seat ORG/PROJECT/LABEL|ORG/PROJECT/*]… [--tab PAGE_ID] [--watch | --control] [--agent] [--expires 8h] [--name phone] [--state DIR]',
  'forge token list [--state DIR]',
  'forge token revoke NAME [--state DIR]',
].join('\n       ');

export async function runTokenCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest, allowPositionals: true,
    options: {
      state: { type: 'string' }, seat: { type: 'string', multiple: true }, tab: { type: 'string' },
      watch: { type: 'boolean' }, control: { type: 'boolean' }, agent: { type: 'boolean' },
      expires: { type: 'string' }, name: { type: 'string' },
    },
  });
  const stateDir = resolveStateDir(values.state);
  if (sub === 'new') {
    if (values.watch && values.control) throw new ForgeError('bad_request', 'a token is --watch or --control, not both');
    const { secret, record } = newToken(stateDir, {
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.agent ? { agent: true } : {}),
      ...(values.seat ? { seats: values.seat } : {}),
      ...(values.tab !== undefined ? { tab: values.tab } : {}),
      ...(values.watch ? { role: 'watch' as const } : values.control ? { role: 'control' as const } : {}),
      ...(values.expires !== undefined ? { expires: values.expires } : {}),
    });
    process.stdout.write(`${describeToken(record)}\n`);
    process.stdout.write(`token: ${secret}\n`);
    const info = readServerInfo(stateDir);
    const base = info ? new URL(info.viewer_url).origin : undefined;
    if (record.kind === 'person' && base) process.stdout.write(`viewer: ${base}/?token=${secret}\n`);
    if (record.kind === 'agent' && info) process.stdout.write(`mcp: ${info.mcp_url}  (Authorization: Bearer ${secret})\n`);
    process.stdout.write('The token is shown this once; forge keeps only its hash.\n');
    return;
  }
  if (sub === 'list') {
    const tokens = readTokens(stateDir);
    if (!tokens.length) { process.stdout.write('no tokens; make one with forge token new\n'); return; }
    for (const t of tokens) process.stdout.write(`${describeToken(t)}\n`);
    return;
  }
  if (sub === 'revoke') {
    const name = positionals[0];
    if (!name) throw new ForgeError('bad_request', 'forge token revoke takes the token\'s name, as forge token list prints it');
    if (!revokeToken(stateDir, name)) throw new ForgeError('bad_request', `no token is named ${name.slice(0, 80)}; forge token list prints their names`);
    process.stdout.write(`revoked ${name}: its open connections are closed now\n`);
    return;
  }
  throw new ForgeError('bad_request', `usage: ${USAGE}`);
}
