/** What every tool call knows: the calling seat and session, and the server's parts. */
import type { Seat } from '../seat.js';
import type { Logger } from '../logging.js';

export interface SessionContext {
  seat: Seat;
  sessionId: string;
  /** The seat's profile key, `<org>/<name>`. */
  profileKey: string;
  /** The working directory the session named (`?cwd=`, the stdio bridge sends its own): the seat's tree. */
  cwd?: string;
  /** The agent's environment the session brought (the stdio bridge sends its own; see seat-env.ts): the seat's shell starts with it. */
  env?: Record<string, string>;
  log: Logger;
  /** Set once the session has ended (the client closed it): a call it left running knows the seat went. */
  ended?: boolean;
  /** A sentence for the agent, read above its next tool answer (see notice.ts). */
  notice?: string;
  /** Sends an MCP progress notification for the running call, when the caller asked for progress. */
  progress?: (message: string) => Promise<void>;
}

/** A tool's answer: text for the agent, optional structured content. */
export interface ToolAnswer {
  text: string;
  structured?: Record<string, unknown>;
  isError?: boolean;
}
