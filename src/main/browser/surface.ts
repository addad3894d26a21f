/** The browser surface: profiles, their hosts and tabs, the agent's browser tools, and viewers. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SessionContext } from '../mcp/context.js';
import type { ViewerHub } from '../viewers.js';
import type { Surface } from '../surface.js';
import type { ServerContext } from '../server.js';

export class BrowserSurface implements Surface {
  readonly name = 'browser';
  constructor(private readonly ctx: ServerContext) {}
  registerTools(_server: McpServer, _ctx: SessionContext): void {}
  attachViewers(_hub: ViewerHub): void {}
  async stop(): Promise<void> {}
}
