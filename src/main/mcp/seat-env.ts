/**
 * The seat's environment: the variables an agent runs with (its PATH, its virtualenv, its own
 * settings), sent by `forge mcp` in the initialize request's `_meta`, so the seat's shell starts
 * as the agent's own commands would. Any MCP client may send it the same way.
 *
 * Sent: everything the agent's process has, but forge's own variables (`FORGE_*`: forge's
 * settings and anything secret of forge's stays with forge) and the ones that describe the
 * bridge's own process and terminal rather than the agent's world (the seat's shell gets its own
 * terminal, size, directory and nesting level).
 */
import { ForgeError } from '../../shared/errors.js';

/** The initialize request's `_meta` key that carries the seat's environment. */
export const SEAT_ENV_META = 'forge/env';
/** Variables one session may name, count: a login environment has well under a few hundred. */
export const SEAT_ENV_MAX_VARS = 2048;
/** All names and values of one session's environment together, bytes: a long PATH and a few certificates fit. */
export const SEAT_ENV_MAX_BYTES = 256 * 1024;

/** Forge's own variables: never the seat's. */
const FORGE_OWN = /^FORGE_/;
/** Variables of the bridge's own process and terminal, which the seat's shell sets for itself. */
const PROCESS_OWN = new Set([
  '_', 'PWD', 'OLDPWD', 'SHLVL', 'TERM', 'COLORTERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'TERM_SESSION_ID',
  'COLUMNS', 'LINES', 'TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'VTE_VERSION', 'SSH_TTY', 'GPG_TTY',
]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What of `env` (the bridge's own environment) the seat's shell starts with. */
export function agentEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || FORGE_OWN.test(k) || PROCESS_OWN.has(k) || !NAME.test(k) || v.includes('\0')) continue;
    out[k] = v;
  }
  return out;
}

/** The environment an initialize request carries, checked; undefined when it carries none. */
export function seatEnvOf(initialize: unknown): Record<string, string> | undefined {
  const meta = (initialize as { params?: { _meta?: Record<string, unknown> } })?.params?._meta;
  const env = meta?.[SEAT_ENV_META];
  if (env === undefined) return undefined;
  if (typeof env !== 'object' || env === null || Array.isArray(env)) throw new ForgeError('bad_request', `_meta["${SEAT_ENV_META}"] must be an object of variable names to strings`);
  const out: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  for (const [k, v] of Object.entries(env as Record<string, unknown>)) {
    if (typeof v !== 'string' || !NAME.test(k) || v.includes('\0')) throw new ForgeError('bad_request', `_meta["${SEAT_ENV_META}"] has a bad variable "${k.slice(0, 100)}": names are letters, digits and _, values are strings without NUL`);
    count++;
    bytes += k.length + v.length;
    if (count > SEAT_ENV_MAX_VARS || bytes > SEAT_ENV_MAX_BYTES) throw new ForgeError('bad_request', `a seat's environment is limited to ${SEAT_ENV_MAX_VARS} variables and ${SEAT_ENV_MAX_BYTES / 1024} KiB`);
    if (FORGE_OWN.test(k) || PROCESS_OWN.has(k)) continue;
    out[k] = v;
  }
  return out;
}
