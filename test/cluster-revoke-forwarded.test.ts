/**
 * Revoking an agent key ends the sessions it opened on other nodes too: a session that reaches
 * beta for a profile alpha hosts, its call waiting on alpha, is answered in words when its key
 * is revoked on beta, its stream closes, alpha lets its seat go, and its next call is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, handOff, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';
import { knownSecret, tokenCli } from './helpers/tokens.js';

let cluster: TestCluster;
let alpha: RunningServer;
let beta: RunningServer;
let pages: PageServer;
let lead: Agent;
let bot: Agent;

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Bot</title><p>bot</p>' });
  cluster = await startCluster(['alpha', 'beta']);
  ({ alpha, beta } = cluster.nodes as Record<'alpha' | 'beta', RunningServer>);
  lead = await connectAgent(alpha, 'default/proj/lead');
  expect((await lead.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  const secret = await knownSecret(beta, tokenCli(beta, 'new', '--agent', '--name', 'bot'));
  bot = await connectAgent({ ...beta, info: { ...beta.info, token: secret } }, 'default/bot/lead');
});

afterAll(async () => {
  for (const a of [bot, lead]) await a?.close().catch(() => undefined);
  await cluster?.stop();
  await pages?.close();
});

/** Waits until alpha's /metrics counts `n` open MCP sessions. */
async function sessionsOnAlpha(n: number): Promise<void> {
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = await (await fetch(`http://127.0.0.1:${alpha.info.port}/metrics`, { headers: { authorization: `Bearer ${alpha.info.token}` } })).text();
    if (new RegExp(`^forge_mcp_sessions ${n}$`, 'm').test(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(/^forge_mcp_sessions \d+$/m.exec(text)?.[0]).toBe(`forge_mcp_sessions ${n}`);
}

describe('a forwarded session whose agent key is revoked', () => {
  it('has its waiting call answered in words, its seat let go on alpha, and its next call refused', async () => {
    expect((await bot.call('browser_navigate', { url: `${pages.url}?bot` })).isError).toBe(false);
    expect(beta.output()).not.toContain('browser host started');
    const page = /page (p-[0-9a-f]{8})/.exec((await bot.call('browser_tabs', { action: 'list' })).text)![1]!;
    const waiting = handOff(bot, page, 'Wait here').then((r) => r.text, (e: Error) => e.message);
    // The hand-off is parked on alpha, its call open through beta; alpha serves both seats' sessions.
    for (let i = 0; i < 100 && !(await lead.call('browser_tabs', { action: 'list' })).text.includes('owner default/bot/lead · held'); i++) await new Promise((r) => setTimeout(r, 50));
    await sessionsOnAlpha(2);
    expect(tokenCli(beta, 'revoke', 'bot')).toContain('revoked bot');
    const said = await Promise.race([waiting, new Promise<string>((r) => setTimeout(() => r('(no answer)'), 10_000))]);
    expect(said).toContain('this agent key was revoked or has expired; the MCP session is closed');
    // alpha ended the session it served for beta.
    await sessionsOnAlpha(1);
    await expect(bot.call('browser_tabs', { action: 'list' })).rejects.toThrow('the bearer token is missing, wrong, expired or revoked');
  });
});
