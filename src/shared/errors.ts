/**
 * Typed errors with the words a person or an agent reads, written once, next to the error.
 * `kind` is the discriminator; `message` is the sentence.
 */
export type ForgeErrorKind =
  | 'host_exited'
  | 'host_not_answering'
  | 'host_start_failed'
  | 'tab_not_open'
  | 'tab_not_yours'
  | 'dialog_waiting'
  | 'chooser_waiting'
  | 'input_backlog'
  | 'no_dialog'
  | 'ref_stale'
  | 'selector_ambiguous'
  | 'selector_not_found'
  | 'page_crashed'
  | 'popup_limit'
  | 'calls_queued'
  | 'url_refused'
  | 'not_lead'
  | 'host_in_use'
  | 'bad_request'
  | 'config'
  | 'auth'
  | 'not_controller'
  | 'terminal'
  | 'timeout'
  | 'hand_off'
  | 'not_verified'
  | 'already_serving';

export class ForgeError extends Error {
  readonly kind: ForgeErrorKind;
  constructor(kind: ForgeErrorKind, message: string) {
    super(message);
    this.kind = kind;
    this.name = 'ForgeError';
  }
}

export function isForgeError(e: unknown, kind?: ForgeErrorKind): e is ForgeError {
  return e instanceof ForgeError && (kind === undefined || e.kind === kind);
}

/** The host's death sentence: the cause is a signal or an exit code. */
export function hostExitedSentence(pid: number, signal: string | null, code: number | null): string {
  const cause = signal ? `signal ${signalNumber(signal)}` : `exit code ${code ?? 'unknown'}`;
  return `the browser host exited (${cause}; pid ${pid}); the next call brings it back`;
}

/** The host's death sentence when its display died: what died is named (Xvfb, its pid and cause), and Chromium that went with it. */
export function displayExitedSentence(xvfbPid: number, signal: string | null, code: number | null, chromiumPid: number): string {
  const cause = signal ? `signal ${signalNumber(signal)}` : `exit code ${code ?? 'unknown'}`;
  return `the browser host exited: its display, Xvfb (pid ${xvfbPid}), ended (${cause}) and Chromium (pid ${chromiumPid}) went with it; the next call brings it back`;
}

/** How a host's process ended, in words for a restart notice: `exited on signal 9`, `exited with code 1`. */
export function exitCause(signal: string | null, code: number | null): string {
  return signal ? `exited on signal ${signalNumber(signal)}` : `exited with code ${code ?? 'unknown'}`;
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGBUS: 7, SIGFPE: 8,
  SIGKILL: 9, SIGUSR1: 10, SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15,
};

function signalNumber(signal: string): string {
  return SIGNALS[signal] !== undefined ? String(SIGNALS[signal]) : signal;
}
