/**
 * A surface is one kind of thing the server shares (the browser, the terminal, hand-offs).
 * Each registers its MCP tools and its viewer messages, and stops with the server.
 */
import type { KeyObject } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ForgeConfig } from './config.js';
import type { ClusterNode } from './cluster/node.js';
import type { SessionContext } from './mcp/context.js';
import type { ViewerHub } from './viewers.js';

/** What every surface is built with: the server's config, state, keys and viewer hub. */
export interface ServerContext {
  config: ForgeConfig;
  stateDir: string;
  token: string;
  hub: ViewerHub;
  /** This process's private key: signs its hand-off and download links (see workers/relay/link-keys.ts). */
  linkKey: KeyObject;
  /** The server's public address (public_url, else scheme://host:port) once it listens. */
  baseUrl: () => string;
  /** Set with [cluster]: this process is one node of several. */
  cluster?: ClusterNode;
}

export interface Surface {
  readonly name: string;
  registerTools(server: McpServer, ctx: SessionContext): void;
  attachViewers(hub: ViewerHub): void;
  sessionClosed?(ctx: SessionContext): void;
  /** Prometheus lines for /metrics. */
  gauges?(): string;
  stop(): Promise<void>;
}
