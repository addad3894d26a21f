/**
 * Bounded repeats in a terminal's own parser, the server's screen model and the web client's
 * xterm.js alike. Scroll up and down (CSI Ps S / T), insert and delete lines (CSI Ps L / M), tab
 * forward and back (CSI Ps I / Z) and repeat the last character (CSI Ps b) run their step Ps
 * times, and xterm.js takes Ps up to 2^31-1. The byte stream's count clamp (the pty worker's
 * counts.ts) cannot see every count as the parser does: a control inside the sequence
 * (`ESC[214^W483648M` is a count of 214483648), a C1 introducer, a sequence spread over reads.
 * One such sequence held the terminals' thread for minutes, every seat's terminal with it.
 *
 * Here the count is the one xterm.js parsed. Past the count where the step stops changing the
 * screen (the rows, for lines; the columns, for tabs) the step runs that many times instead, so
 * the screen ends the same; a repeat of the last character is bounded to one screenful of it.
 */

/** The parts of an xterm.js Terminal (headless or the browser's) this reads. */
export interface RepeatingTerminal {
  readonly rows: number;
  readonly cols: number;
  readonly parser: {
    registerCsiHandler(id: { final: string }, callback: (params: (number | number[])[]) => boolean | Promise<boolean>): { dispose(): void };
  };
}

/** Where xterm.js keeps its sequence handlers, by method name (the package is pinned in the lock). */
interface RepeatInternals { _core?: { _inputHandler?: Record<string, unknown> } }

/** The final byte of each repeating sequence, its handler's name, and the count past which it changes nothing more. */
const REPEATS: ReadonlyArray<{ final: string; method: string; bound: (t: RepeatingTerminal) => number }> = [
  { final: 'S', method: 'scrollUp', bound: (t) => t.rows },
  { final: 'T', method: 'scrollDown', bound: (t) => t.rows },
  { final: 'L', method: 'insertLines', bound: (t) => t.rows },
  { final: 'M', method: 'deleteLines', bound: (t) => t.rows },
  { final: 'I', method: 'cursorForwardTab', bound: (t) => t.cols },
  { final: 'Z', method: 'cursorBackwardTab', bound: (t) => t.cols },
  { final: 'b', method: 'repeatPrecedingCharacter', bound: (t) => t.cols * t.rows },
];

/**
 * Registers the bounds on `term`: a count within its bound goes to xterm.js's own handler as it
 * came; a bigger one runs that handler with the bound. Where the handler cannot be found (a
 * version that renamed it), the oversized sequence is dropped rather than run.
 */
export function boundRepeats(term: RepeatingTerminal): void {
  for (const r of REPEATS) {
    term.parser.registerCsiHandler({ final: r.final }, (params) => {
      const n = typeof params[0] === 'number' ? params[0] : 0;
      const bound = Math.max(1, r.bound(term));
      if (n <= bound) return false;
      const input = (term as unknown as RepeatInternals)._core?._inputHandler;
      const run = input?.[r.method];
      if (typeof run === 'function') run.call(input, { params: Int32Array.of(bound), length: 1 });
      return true;
    });
  }
}

/** Whether `term`'s parser still has the handlers the bounds run (false: a version moved them). */
export function repeatsReachable(term: RepeatingTerminal): boolean {
  const input = (term as unknown as RepeatInternals)._core?._inputHandler;
  return REPEATS.every((r) => typeof input?.[r.method] === 'function');
}
