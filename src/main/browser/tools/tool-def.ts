/** What each browser_* call is made of: its definition, the answer it gives, and what the server lends it. */
import type { z } from 'zod';
import type { ViewRecording } from '../../../shared/protocol.js';
import type { SessionContext, ToolAnswer } from '../../mcp/context.js';
import type { ProfileBrowser } from '../profile.js';
import type { Tab } from '../tabs.js';
import type { AgentCap } from './caps.js';
import type { AgentFile } from './seat-files.js';

export interface ToolHost {
  profile(key: string): ProfileBrowser;
  /** Whether a person's viewer watches the tab now (its layout is theirs then). */
  watched?(tab: Tab): boolean;
  /** An agent's recording of the tab starts or (null) ends: its viewers are told and laid out at its size; answers whether any views it. */
  recording?(tab: Tab, take: ViewRecording | null): Promise<boolean>;
  /** The opt-in tool groups forge.toml's [agent] caps names; none when absent. */
  agentCaps?(): ReadonlySet<AgentCap>;
  /** [agent] allow_run_code: whether browser_run_code_unsafe is offered. */
  allowRunCode?(): boolean;
}

/**
 * An answer that may carry images (a screenshot), sent as MCP image content, and files (a PDF,
 * a trace), kept in the session's store and sent as resource links the agent reads.
 */
export interface BrowserAnswer extends ToolAnswer { images?: Array<{ data: string; mimeType: string }>; files?: AgentFile[] }

type Handler = (args: Record<string, unknown>, ctx: SessionContext, p: ProfileBrowser, host: ToolHost) => Promise<BrowserAnswer>;

/** `cap`: the opt-in group the tool belongs to (absent: core, always offered); `runsCode`: offered only with [agent] allow_run_code. */
export interface ToolDef { name: string; description: string; schema: z.ZodObject<z.ZodRawShape>; run: Handler; cap?: AgentCap; runsCode?: true }
