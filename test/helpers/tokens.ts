/** `forge token …` against a test server's state dir, and a new token once the running server has read it. */
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import type { RunningServer } from './server.js';

/** Runs `forge token …` for the server's state dir; its stdout. */
export function tokenCli(forge: RunningServer, ...args: string[]): string {
  return execFileSync(process.execPath, ['dist/src/main/cli.js', 'token', ...args, '--state', forge.stateDir], { encoding: 'utf8' });
}

/** The secret `forge token new` printed. */
export function printedSecret(out: string): string {
  return /^token: (\S+)$/m.exec(out)![1]!;
}

/** The secret `forge token new` printed, once the server takes it (it reads the state dir's tokens within a moment). */
export async function knownSecret(forge: RunningServer, out: string): Promise<string> {
  const secret = printedSecret(out);
  for (let i = 0; i < 50; i++) {
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws?token=${secret}`);
      ws.on('open', () => { ws.close(); resolve(101); });
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
    });
    if (status !== 401) return secret;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not take the new token');
}
