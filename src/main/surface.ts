/**
 * A surface is one kind of thing the server shares (the browser, the terminal, hand-offs).
 * Each registers its MCP tools and its viewer messages, and stops with the server.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SessionContext } from './mcp/context.js';
import type { ViewerHub } from './viewers.js';

export interface Surface {
  readonly name: string;
  registerTools(server: McpServer, ctx: SessionContext): void;
  attachViewers(hub: ViewerHub): void;
  sessionClosed?(ctx: SessionContext): void;
  /** Prometheus lines for /metrics. */
  gauges?(): string;
  stop(): Promise<void>;
}
