/** forge's command line: `serve`, `mcp`, `token` and `cluster users`. `./forge` installs and builds before calling this. */
import { parseArgs } from 'node:util';
import { isForgeError } from '../shared/errors.js';

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'serve') {
    const { values } = parseArgs({ args: rest, options: { state: { type: 'string' }, port: { type: 'string' }, config: { type: 'string' } } });
    // Before the server's modules load: the browser driver fixes its temp dir as it loads.
    const { resolveStateDir, useOwnTmp } = await import('./state.js');
    const stateDir = resolveStateDir(values.state);
    useOwnTmp(stateDir);
    const { startServer } = await import('./server.js');
    await startServer({ stateDir, port: values.port !== undefined ? Number(values.port) : undefined, configFile: values.config });
    return;
  }
  if (cmd === 'mcp') {
    const { values } = parseArgs({ args: rest, options: { seat: { type: 'string' }, state: { type: 'string' }, config: { type: 'string' }, port: { type: 'string' } } });
    if (!values.seat) throw new Error('forge mcp needs --seat ORG/PROJECT/LABEL');
    const { runBridge } = await import('./mcp/bridge.js');
    await runBridge({ seat: values.seat, stateDir: values.state, config: values.config, port: values.port });
    return;
  }
  if (cmd === 'token') {
    const { runTokenCommand } = await import('./token-cli.js');
    await runTokenCommand(rest);
    return;
  }
  if (cmd === 'cluster' && rest[0] === 'users') {
    const { natsUsers, natsUsersText } = await import('./cluster/nats-users.js');
    process.stdout.write(natsUsersText(natsUsers(rest.slice(1))));
    return;
  }
  throw new Error('usage: forge serve [--state DIR] [--port N] [--config FILE] | forge mcp --seat ORG/PROJECT/LABEL [--state DIR] | forge token new|list|revoke | forge cluster users NODE…');
}

main().catch((e) => {
  process.stderr.write(`forge: ${isForgeError(e) || e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
