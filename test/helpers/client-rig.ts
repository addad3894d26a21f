/**
 * The set-up most client tests share, for one test file's whole run: a forge server, an agent on
 * a seat over MCP, and one headless Chromium for the client pages. Called at describe level; its
 * fields are filled before the file's own beforeAll hooks run, and everything ends after them.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startForge, mcpClient, type RunningServer } from './server.js';
import { launchClientBrowser } from './client-page.js';

export interface ClientRig { server: RunningServer; agent: Client; browser: Browser }

export function useClientRig(seat: string, toml?: string): ClientRig {
  const rig = {} as ClientRig;
  beforeAll(async () => {
    rig.server = await startForge(toml ? { toml } : undefined);
    rig.agent = await mcpClient(rig.server.info, seat);
    rig.browser = await launchClientBrowser();
  });
  afterAll(async () => {
    await rig.browser?.close();
    await rig.agent?.close();
    await rig.server?.stop();
  });
  return rig;
}
