/**
 * What the fuzzers aim at: an agent's session whose tab shows a local page (so attach, control,
 * input and nav reach a live page), a seat for the terminal, and a prober's own session.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentClient, type ForgeServer } from './server.js';
import type { ViewerScene } from './viewer-gen.js';

export const SCENE_SEAT = 'default/fuzz/lead';
export const PROBE_SEAT = 'default/fuzz/probe';
export const MCP_SEAT = 'default/fuzz/mcp';

export interface Scene {
  viewer: ViewerScene;
  pagesBase: string;
  agent: Client;
  prober: Client;
  close: () => Promise<void>;
}

/** The test pages, served from the checkout (benches and tests both run from its root). */
export async function servePages(): Promise<{ server: Server; base: string }> {
  const dir = join(process.cwd(), 'bench', 'pages');
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').replace(/\?.*$/, '').replace(/\.\.+/g, '');
    try { res.end(readFileSync(join(dir, name))); } catch { res.statusCode = 404; res.end('not found'); }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

function text(r: unknown): string {
  return ((r as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('\n');
}

/** `browser`: open a tab for the scene (starts the profile's Chromium). */
export async function makeScene(server: ForgeServer, opts: { browser: boolean }): Promise<Scene> {
  const pages: { server: Server; base: string } = await servePages();
  const agent = await agentClient(server, SCENE_SEAT);
  const prober = await agentClient(server, PROBE_SEAT);
  const viewer: ViewerScene = { seat: SCENE_SEAT };
  if (opts.browser) {
    const nav = await agent.callTool({ name: 'browser_navigate', arguments: { url: `${pages.base}/simple.html` } }, undefined, { timeout: 120_000 });
    if (nav.isError) throw new Error(`the scene's tab did not open: ${text(nav)}`);
    const list = text(await agent.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
    viewer.pageId = /\bp-[0-9a-f]{8}\b/.exec(list)?.[0];
    viewer.tab = Number(/tab (\d+)|(\d+)[.:)]/i.exec(list)?.slice(1).find(Boolean) ?? 1);
  }
  return {
    viewer, pagesBase: pages.base, agent, prober,
    close: async () => {
      await agent.close().catch(() => undefined);
      await prober.close().catch(() => undefined);
      // The browser keeps its connections to the pages alive: they are ended, or close would wait on them.
      pages.server.closeAllConnections();
      await new Promise((r) => pages.server.close(r));
    },
  };
}
