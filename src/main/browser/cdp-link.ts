/**
 * What the two raw CDP sockets share: the client's side (send, end), parsing a client's message,
 * CDP's own error shape, and how often a socket's traffic counts as use of its tab.
 */
import type { Logger } from 'pino';
import type { ProfileBrowser } from './profile.js';
import { CDP_SERVER_ERROR, type CdpAnswer, type CdpError, type CdpMessage, type CdpUpstream } from './cdp-upstream.js';
import type { Tab } from './tabs.js';

/** How often one socket's traffic marks its tab used, ms: every message is use, but the budget needs it once a second at most. */
export const CDP_USE_MARK_MS = 1_000;
/** JSON-RPC's codes for a message that is not JSON, and for one that is not a command. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export interface LinkContext {
  conn: number;
  seat: string;
  profile: ProfileBrowser;
  log: Logger;
  send(text: string): void;
  end(code: number, reason: string): void;
}

/**
 * One raw CDP socket on the main thread, page or seat: it ends once, either by its client
 * (`closed`) or by forge (`end`, which tells the client why), and its browser connection goes
 * with it either way.
 */
export abstract class RawCdpLink {
  protected upstream?: CdpUpstream;
  protected ended = false;

  constructor(protected readonly ctx: LinkContext) {}

  abstract start(): void;
  abstract message(text: string): void;
  /** The profile's tabs changed. */
  abstract changed(): void;

  /** The client closed its socket. */
  closed(): void {
    this.ended = true;
    void this.upstream?.close();
  }

  end(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.ctx.end(code, reason);
    void this.upstream?.close();
  }
}

/** A command a client sent: its id and method checked, its params an object. */
export interface ClientCommand { id: number; method: string; params: Record<string, unknown>; sessionId?: string; text: string }

/** Reads one client message; a message that is not a command is answered with CDP's error and undefined. */
export function parseCommand(ctx: LinkContext, text: string): ClientCommand | undefined {
  let m: unknown;
  try { m = JSON.parse(text); } catch {
    ctx.send(JSON.stringify({ error: { code: PARSE_ERROR, message: 'the message is not JSON; it was ignored' } }));
    return undefined;
  }
  const msg = m as CdpMessage;
  const id = typeof msg === 'object' && msg !== null && Number.isSafeInteger(msg.id) ? msg.id! : undefined;
  if (id === undefined || typeof msg.method !== 'string' || (msg.params !== undefined && (typeof msg.params !== 'object' || msg.params === null)) || (msg.sessionId !== undefined && typeof msg.sessionId !== 'string')) {
    ctx.send(JSON.stringify({ ...(id !== undefined ? { id } : {}), error: { code: INVALID_REQUEST, message: 'a CDP command is {"id": integer, "method": string, "params"?: object, "sessionId"?: string}; it was ignored' } }));
    return undefined;
  }
  return { id, method: msg.method, params: msg.params ?? {}, ...(msg.sessionId !== undefined ? { sessionId: msg.sessionId } : {}), text };
}

/** A refusal in CDP's own error shape, answering command `c`. */
export function refusal(c: { id: number; sessionId?: string }, message: string): string {
  return answerText(c, { error: { code: CDP_SERVER_ERROR, message } });
}

export function answerText(c: { id: number; sessionId?: string }, a: { result: unknown } | { error: CdpError }): string {
  return JSON.stringify({ id: c.id, ...a, ...(c.sessionId !== undefined ? { sessionId: c.sessionId } : {}) });
}

/** Marks a socket's traffic as use of its tab, at most once per CDP_USE_MARK_MS; the idle clock hears every message. */
export class UseMarks {
  private last = new WeakMap<object, number>();
  mark(p: ProfileBrowser, tab: Tab): void {
    const now = Date.now();
    p.lastActivity = now;
    if (now - (this.last.get(tab) ?? 0) < CDP_USE_MARK_MS) return;
    this.last.set(tab, now);
    p.markUse(tab, 'agent');
  }
}

/**
 * A client's Page.handleJavaScriptDialog for a dialog forge holds: answered through forge's own
 * hold, so it works whether or not the client enabled Page before the dialog opened, and the hold
 * ends with it. Two answers at once: the first takes the hold, the other finds no dialog and is
 * told so; a dialog gone meanwhile is an answer, never a failure that escapes. Undefined when forge
 * holds no dialog on the tab (the browser answers then).
 */
export function answerHeldDialog(p: ProfileBrowser, tab: Tab, params: Record<string, unknown>): Promise<CdpAnswer> | undefined {
  const held = tab.dialog;
  if (!held) return undefined;
  tab.dialog = undefined;
  p.announce();
  const text = typeof params.promptText === 'string' ? params.promptText : undefined;
  const answer = params.accept === true ? held.dialog.accept(text) : held.dialog.dismiss();
  return answer.then(
    (): CdpAnswer => ({ result: {} }),
    (e: Error): CdpAnswer => ({ error: { code: CDP_SERVER_ERROR, message: `No dialog is showing (${e.message.split('\n')[0]})` } }),
  );
}
