/**
 * The agent's waits on a terminal: `run` (type a command, wait for it, read its output and exit
 * code) and `wait` (until the command is done, or until text shows). Exact through OSC 133 when
 * the shell emits marks; otherwise the quiet-screen heuristic, and the answer says so.
 */
import { ForgeError } from '../../shared/errors.js';
import type { RunResult, WaitResult } from './protocol.js';
import type { SeatTerminal } from './terminal.js';
import { COMMAND_START_GRACE_MS } from './marks.js';
import { textBetween, screenText } from './screen.js';

/** Output silence that the heuristic reads as "the command is done", ms. */
export const QUIET_SCREEN_MS = 400;
/** How long a fresh shell gets to draw its first prompt before a command is typed, ms: rc files can be slow. */
export const STARTUP_PROMPT_MAX_MS = 15_000;
/** Poll period of the heuristic and text waits, ms. */
const POLL_MS = 40;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until the shell has drawn its first prompt: a mark, or the screen has gone quiet. */
export async function ready(term: SeatTerminal): Promise<void> {
  const deadline = term.startedAt + STARTUP_PROMPT_MAX_MS;
  while (!term.exited && !term.marks.seen && Date.now() < deadline) {
    const quietFor = Date.now() - term.lastOutputAt;
    // A shell with forge's marks is ready at its first mark; any other at its first quiet screen.
    if (!term.expectMarks && term.lastOutputAt > term.startedAt && quietFor >= QUIET_SCREEN_MS) break;
    await sleep(POLL_MS);
  }
  await term.settled();
}

function notBusy(term: SeatTerminal): void {
  if (term.running || term.marks.running) {
    throw new ForgeError('terminal', 'a command is still running in this terminal; wait for it (terminal__wait until "done") or interrupt it (terminal__write keys ["Ctrl-C"])');
  }
}

/** Resolves when `test` holds, re-checked on every mark and every poll, or false at the deadline. */
async function until(term: SeatTerminal, test: () => boolean, deadline: number): Promise<boolean> {
  if (test()) return true;
  return new Promise((resolve) => {
    let finished = false;
    const finish = (v: boolean): void => {
      if (finished) return;
      finished = true;
      off();
      clearInterval(timer);
      resolve(v);
    };
    const off = term.marks.onChange(() => { if (test()) finish(true); });
    const timer = setInterval(() => {
      if (test()) finish(true);
      else if (Date.now() >= deadline || term.exited) finish(test());
    }, POLL_MS);
  });
}

function quiet(term: SeatTerminal, since: number): boolean {
  const now = Date.now();
  return now - term.lastOutputAt >= QUIET_SCREEN_MS && now - since >= QUIET_SCREEN_MS;
}

export async function run(term: SeatTerminal, command: string, timeoutMs: number): Promise<RunResult> {
  await ready(term);
  // A line typed just before is a command about to start: it either starts (busy, refused below)
  // or the shell lets it go (a new prompt, or the grace passes), never a run sent behind it.
  await until(term, () => !term.marks.starting(), Date.now() + COMMAND_START_GRACE_MS);
  notBusy(term);
  if (/[\r\n]/.test(command.replace(/[\r\n]+$/, ''))) {
    throw new ForgeError('bad_request', 'terminal__run takes one command line; join commands with ";" or "&&", or type them with terminal__write');
  }
  const deadline = Date.now() + timeoutMs;
  const buf = term.model.buffer;
  const startMarker = term.model.registerMarker(0);
  const doneBefore = term.marks.doneCount;
  const exact = term.marks.seen;
  const started = Date.now();
  term.running = true;
  term.pushFacts();
  try {
    term.write(command.replace(/[\r\n]+$/, '') + '\r');
    if (exact) {
      const done = await until(term, () => term.marks.doneCount > doneBefore, deadline);
      await term.settled();
      if (done && term.marks.lastDone) {
        const d = term.marks.lastDone;
        return { output: d.output, exit_code: d.exit, source: 'osc133', ...(d.cut ? { cut: true } : {}) };
      }
    } else {
      await until(term, () => quiet(term, started), deadline);
      await term.settled();
    }
    // Heuristic, the deadline passed, or the shell ended: the screen from the line after the command to the cursor.
    const active = buf.active;
    const from = startMarker && !startMarker.isDisposed ? startMarker.line + 1 : active.baseY;
    const cursorRow = active.baseY + active.cursorY;
    const ended = term.exitedWith;
    const timedOut = !ended && (exact || !quiet(term, started));
    const endRow = timedOut || ended ? cursorRow : cursorRow - 1;
    const output = endRow >= from ? textBetween(active, from, 0, endRow, timedOut || ended ? active.cursorX : term.model.cols) : '';
    const source = exact ? 'osc133' : 'heuristic';
    if (ended) return { output: output.replace(/\n+$/, ''), exit_code: ended.signal ? null : ended.code, source, shell_exited: ended };
    return { output: output.replace(/\n+$/, ''), exit_code: null, source, ...(timedOut ? { timed_out: true } : {}) };
  } finally {
    startMarker?.dispose();
    term.running = false;
    term.pushFacts();
  }
}

/** A wait the shell's own end cut short: the shell is gone, and with it whatever was awaited. */
function ended(term: SeatTerminal): WaitResult | undefined {
  const how = term.exitedWith;
  return how && { done: false, source: term.marks.seen ? 'osc133' : 'heuristic', exit_code: how.signal ? null : how.code, shell_exited: how };
}

export async function wait(term: SeatTerminal, untilWhat: 'done' | 'text', text: string | undefined, timeoutMs: number): Promise<WaitResult> {
  const deadline = Date.now() + timeoutMs;
  if (untilWhat === 'text') {
    if (!text) throw new ForgeError('bad_request', 'terminal__wait until "text" needs the text to wait for');
    const shows = (): boolean => {
      const buf = term.model.buffer.active;
      return screenText(buf, term.model.rows).includes(text);
    };
    await term.settled();
    const found = await until(term, shows, deadline);
    return (!found && ended(term)) || { done: found, source: 'text', ...(found ? {} : { timed_out: true }) };
  }
  await ready(term);
  if (term.marks.seen) {
    // A line just sent whose command the shell has not yet marked as started is still to run.
    const done = await until(term, () => !term.marks.running && !term.marks.starting() && !term.running, deadline);
    await term.settled();
    const last = done ? term.marks.lastDone : null;
    return (!done && ended(term)) || {
      done, source: 'osc133', exit_code: last?.exit ?? null,
      ...(last ? { output: last.output, ...(last.cut ? { cut: true } : {}) } : {}),
      ...(done ? {} : { timed_out: true }),
    };
  }
  const since = Date.now();
  const done = await until(term, () => quiet(term, since), deadline);
  return (!done && ended(term)) || { done, source: 'heuristic', ...(done ? {} : { timed_out: true }) };
}
