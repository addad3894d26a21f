/**
 * The agent's terminal tools. The agent drives the seat's terminal like a person: it types
 * (terminal__write), runs a command line (terminal__run), reads the screen, waits, closes, and
 * hands the keyboard to its person (terminal_hand_off). While a person holds the keyboard or a
 * hand-off is parked, the tools are refused with that reason, reading and waiting included: what
 * the person types is theirs, and a hand-off hands the agent its ending, not the screen. A call
 * already running when the person takes control runs on to its end.
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionContext } from '../mcp/context.js';
import { ForgeError, isForgeError } from '../../shared/errors.js';
import { TERM_STATE } from '../../shared/terminal.js';
import type { RunResult, ScreenRead, ShellExit, WaitResult } from '../../workers/pty/protocol.js';
import type { PtyLink } from './pty-link.js';
import { shellEndWords } from './shell-end.js';
import type { TerminalRecord } from './record.js';

/** What the terminal tools need of the terminal surface: the seat's terminal, its shell, and the pushes its viewers get. */
export interface TerminalToolHost {
  readonly pty: PtyLink;
  forSeat(seat: string): TerminalRecord | undefined;
  /** The seat's terminal, its shell started when none runs. */
  ensure(seat: string): Promise<TerminalRecord>;
  close(r: TerminalRecord, message: string): void;
  pushState(r: TerminalRecord, notices?: Map<number, string>): void;
  setHolder(r: TerminalRecord, holder: number | null, lostNotice: string): void;
}

/** Default bound on terminal__run and terminal__wait, ms: long enough for a build step, short enough to hear back. */
export const TERMINAL_CALL_TIMEOUT_DEFAULT_MS = 30_000;
/** Longest bound an agent may ask for, ms. */
export const TERMINAL_CALL_TIMEOUT_MAX_MS = 10 * 60_000;
/** Text typed by one terminal__write, characters. */
export const TERMINAL_WRITE_MAX_CHARS = 64 * 1024;
/** Period of the progress notifications while a hand-off waits for its person, ms. */
export const HAND_OFF_PROGRESS_MS = 5_000;

type Extra = { signal: AbortSignal; _meta?: { progressToken?: string | number }; sendNotification: (n: never) => Promise<void> };

function answerOf(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

async function guarded(sctx: SessionContext, tool: string, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (e) {
    const message = isForgeError(e) ? e.message : `${tool} failed: ${(e as Error).message}`;
    sctx.log.info({ tool, err: message }, 'terminal call refused');
    return { content: [{ type: 'text', text: message }], isError: true };
  }
}

/** The words for a shell that ended under an agent's call: the terminal went with it, and what comes next. */
function shellEnded(n: number, how: ShellExit): string {
  return `${shellEndWords(how)}, so terminal ${n} has ended; your next terminal call starts a fresh one`;
}

/** What an answer adds when a command's output outgrew the scrollback. */
const CUT_WORDS = ' (the output was longer than the terminal keeps; this is its end)';

/** Refuses the agent's call while its person holds the terminal (their take control, or a parked hand-off). */
function personHolds(r: TerminalRecord): void {
  if (r.handOff) throw new ForgeError('hand_off', `terminal ${r.number} is handed off to your person ("${r.handOff.reason}"); wait for their answer`);
  if (r.holder !== null) throw new ForgeError('not_controller', `your person has the keyboard of terminal ${r.number} (they took control in forge); wait until they release it`);
}

/**
 * Says once, on the agent's next terminal call, that the screen model skipped sequences it could
 * not draw since the agent was last told: the screen it reads may then differ from the program's.
 */
function withUndrawnNote(r: TerminalRecord, res: CallToolResult): CallToolResult {
  const u = r.undrawn;
  if (u.count <= u.told) return res;
  const n = u.count - u.told;
  u.told = u.count;
  const note = `note: the screen model could not draw ${n === 1 ? 'one sequence' : `${n} sequences`} of the program's output (the last: ${u.where}; xterm.js said "${u.message.slice(0, 200)}"). It skipped ${n === 1 ? 'it' : 'each'} and drew the rest, so this screen may differ from what the program drew until the program redraws it (Ctrl-L, or \`clear\`).`;
  const [first, ...rest] = res.content;
  const content = first?.type === 'text' ? [{ ...first, text: `${first.text}\n${note}` }, ...rest] : [...res.content, { type: 'text' as const, text: note }];
  return { ...res, content };
}

const timeout = z.number().int().positive().max(TERMINAL_CALL_TIMEOUT_MAX_MS).optional();

export function registerTerminalTools(s: TerminalToolHost, server: McpServer, sctx: SessionContext): void {
  const seat = sctx.seat.key;
  const open = async (): Promise<TerminalRecord> => {
    const r = await s.ensure(seat);
    r.lastUse = Date.now();
    return r;
  };
  /** Runs `work` on the seat's terminal, counted as a call in flight for the idle close. */
  const use = async (work: (r: TerminalRecord) => Promise<CallToolResult>): Promise<CallToolResult> => {
    const r = await open();
    r.agentCalls++;
    try {
      return withUndrawnNote(r, await work(r));
    } finally {
      r.agentCalls--;
      r.lastUse = Date.now();
    }
  };

  server.registerTool('terminal__write', {
    description: 'Type into your terminal: `text` as typed (no Enter added), then `keys`, named keys such as Enter, Tab, Escape, Up, Ctrl-C, Ctrl-D (C-c, M-b and ^C are taken too).',
    inputSchema: z.object({ text: z.string().max(TERMINAL_WRITE_MAX_CHARS).optional(), keys: z.array(z.string()).max(64).optional() }).strict(),
  }, ({ text, keys }) => guarded(sctx, 'terminal__write', async () => {
    if (!text && !keys?.length) throw new ForgeError('bad_request', 'terminal__write needs `text`, `keys`, or both');
    return use(async (r) => {
    personHolds(r);
    if (text) s.pty.post({ t: 'input', id: r.id, data: text });
    if (keys?.length) await s.pty.request({ t: 'keys', id: r.id, keys });
    return answerOf(`typed into terminal ${r.number}${text ? ` ${text.length} characters` : ''}${keys?.length ? `${text ? ' and' : ''} ${keys.join(' ')}` : ''}`);
    });
  }));

  server.registerTool('terminal__run', {
    description: 'Run one command line in your terminal and return its output and exit code. Exact when the shell emits prompt marks (source "osc133"); otherwise the screen is read once output goes quiet (source "heuristic", exit_code null).',
    inputSchema: z.object({ command: z.string().min(1).max(TERMINAL_WRITE_MAX_CHARS), timeout_ms: timeout }).strict(),
    outputSchema: { output: z.string(), exit_code: z.number().nullable(), source: z.enum(['osc133', 'heuristic']), timed_out: z.boolean().optional(), cut: z.boolean().optional(), shell_exited: z.object({ code: z.number(), signal: z.number().nullable() }).optional() },
  }, ({ command, timeout_ms }) => guarded(sctx, 'terminal__run', () => use(async (r) => {
    personHolds(r);
    const res = await s.pty.request<RunResult>({ t: 'run', id: r.id, command, timeoutMs: timeout_ms ?? TERMINAL_CALL_TIMEOUT_DEFAULT_MS });
    r.lastUse = Date.now();
    const head = res.shell_exited
      ? `${shellEnded(r.number, res.shell_exited)}${res.output ? '; its last output:' : ''}`
      : res.timed_out
        ? `the command is still running after ${timeout_ms ?? TERMINAL_CALL_TIMEOUT_DEFAULT_MS} ms; ${res.output ? 'the screen so far:' : 'nothing on the screen from it yet'}`
        : res.exit_code === null ? `done (${res.source}: exit code unknown)` : `exit code ${res.exit_code}`;
    const cut = res.cut ? CUT_WORDS : '';
    return answerOf(`${head}${cut}${res.output ? `\n${res.output}` : ''}`, { ...res });
  })));

  server.registerTool('terminal__read', {
    description: 'Read your terminal\'s screen as text, with the cursor and the state (busy, password wanted, exact marks or heuristic). Like every terminal tool, refused while your person holds the terminal (they took control, or your hand-off is waiting): what they type is theirs.',
    inputSchema: z.object({}).strict(),
  }, () => guarded(sctx, 'terminal__read', () => use(async (r) => {
    personHolds(r);
    const res = await s.pty.request<ScreenRead>({ t: 'read', id: r.id });
    const state = { ...res.facts, source: res.facts.marks ? 'osc133' : 'heuristic' };
    return answerOf(`terminal ${r.number} · ${r.shell} · ${res.facts.cwd}\n${res.text}\n[cursor ${res.cursor.y + 1}:${res.cursor.x + 1}${state.password ? ' · a password is wanted' : ''}${state.busy ? ' · a command is running' : ''}]`,
      { text: res.text, cursor: res.cursor, state });
  })));

  server.registerTool('terminal__wait', {
    description: 'Wait until the running command is done (until "done") or until `text` shows on the screen (until "text").',
    inputSchema: z.object({ until: z.enum(['done', 'text']), text: z.string().max(1000).optional(), timeout_ms: timeout }).strict(),
  }, ({ until, text, timeout_ms }) => guarded(sctx, 'terminal__wait', () => use(async (r) => {
    personHolds(r);
    r.agentWaits++;
    if (r.agentWaits === 1) s.pushState(r);
    try {
      const res = await s.pty.request<WaitResult>({ t: 'wait', id: r.id, until, text, timeoutMs: timeout_ms ?? TERMINAL_CALL_TIMEOUT_DEFAULT_MS });
      const words = res.shell_exited
        ? shellEnded(r.number, res.shell_exited)
        : res.done
          ? (until === 'text' ? `"${text}" is on the screen` : `done${res.exit_code !== undefined && res.exit_code !== null ? ` (exit code ${res.exit_code})` : ''}`)
          : `not yet after ${timeout_ms ?? TERMINAL_CALL_TIMEOUT_DEFAULT_MS} ms`;
      const cut = res.cut ? CUT_WORDS : '';
      return answerOf(`${words} · source ${res.source}${cut}${res.output ? `\n${res.output}` : ''}`, { ...res, state: { source: res.source } });
    } finally {
      r.agentWaits--;
      r.lastUse = Date.now();
      if (r.agentWaits === 0) s.pushState(r);
    }
  })));

  server.registerTool('terminal__close', {
    description: 'Close your terminal: its shell and everything running in it end.',
    inputSchema: z.object({}).strict(),
  }, () => guarded(sctx, 'terminal__close', async () => {
    const r = s.forSeat(seat);
    if (!r) return answerOf('your seat has no terminal open');
    personHolds(r);
    s.close(r, `terminal ${r.number} was closed by the agent`);
    return answerOf(`terminal ${r.number} is closed`);
  }));

  server.registerTool('terminal_hand_off', {
    description: 'Hand your terminal to your person (a password, a confirmation, anything you must not type) and wait for their Done or Not now. Never ask for a secret in text.',
    inputSchema: z.object({ reason: z.string().min(1).max(500), hidden: z.boolean().optional() }).strict(),
  }, ({ reason, hidden }, extra) => guarded(sctx, 'terminal_hand_off', async () => {
    const r = await open();
    if (r.handOff) throw new ForgeError('hand_off', `terminal ${r.number} already has a hand-off waiting ("${r.handOff.reason}")`);
    const ex = extra as unknown as Extra;
    const token = ex._meta?.progressToken;
    let ticks = 0;
    const answer = await new Promise<'done' | 'not_now' | 'withdrawn'>((resolve) => {
      const timer = setInterval(() => {
        if (token === undefined) return;
        ticks++;
        void ex.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ticks, message: `waiting for your person to answer in forge (terminal ${r.number})` } } as never).catch(() => undefined);
      }, HAND_OFF_PROGRESS_MS);
      const finish = (a: 'done' | 'not_now' | 'withdrawn'): void => {
        clearInterval(timer);
        ex.signal.removeEventListener('abort', abort);
        resolve(a);
      };
      const abort = (): void => finish('withdrawn');
      ex.signal.addEventListener('abort', abort, { once: true });
      r.handOff = { reason, hidden: hidden ?? false, answer: finish };
      s.pushState(r);
    });
    r.handOff = null;
    r.lastUse = Date.now();
    // The ending returns the keyboard to the agent.
    if (r.holder !== null) s.setHolder(r, null, TERM_STATE.agentTookKeyboard);
    else s.pushState(r);
    const words = answer === 'done' ? 'your person answered Done' : answer === 'not_now' ? 'your person answered Not now' : 'the hand-off was withdrawn (the terminal ended or the call was cancelled)';
    return answerOf(words, { answer });
  }));
}
