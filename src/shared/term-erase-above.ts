/**
 * Erase above (ED 1, `CSI 1 J`, and its selective form `CSI ? 1 J`) with the cursor in the last
 * column of the buffer's last line, in a terminal's own parser: the server's screen model and the
 * web client's xterm.js alike. xterm.js (6.0) then clears the wrap flag of the line below the
 * cursor by the cursor's row on the screen, not in the buffer; on a buffer with no scrollback yet
 * that line does not exist and the handler throws. The throw stops the model's write queue: every
 * byte after it is never drawn, and the terminal shows the same screen for good (the fuzz found it:
 * `CSI 24;80H CSI 1J` on a fresh 80x24 terminal).
 *
 * Here that one case is erased as xterm.js erases it elsewhere: the cursor's line from its start
 * through the cursor, every line above it, and no line below (there is none). Every other erase
 * goes to xterm.js's own handler as it came.
 */

/** The parts of an xterm.js Terminal (headless or the browser's) this reads. */
export interface ErasingTerminal {
  readonly cols: number;
  readonly buffer: { readonly active: { readonly cursorX: number; readonly cursorY: number; readonly length: number } };
  readonly parser: {
    registerCsiHandler(id: { prefix?: string; final: string }, callback: (params: (number | number[])[]) => boolean | Promise<boolean>): { dispose(): void };
  };
}

/** Where xterm.js keeps the steps of an erase (the package is pinned in the lock). */
interface EraseInternals {
  _core?: {
    _inputHandler?: {
      _eraseInBufferLine?: (y: number, start: number, end: number, clearWrap: boolean, respectProtect: boolean) => void;
      _resetBufferLine?: (y: number, respectProtect: boolean) => void;
      _dirtyRowTracker?: { markDirty(y: number): void };
    };
  };
}

const inputOf = (term: ErasingTerminal): NonNullable<NonNullable<EraseInternals['_core']>['_inputHandler']> | undefined =>
  (term as unknown as EraseInternals)._core?._inputHandler;

/**
 * Registers the mended erase on `term`. Where xterm.js's erase steps cannot be found (a version
 * that renamed them), that one erase is left to xterm.js's own handler, as before.
 */
export function mendEraseAbove(term: ErasingTerminal): void {
  const erase = (respectProtect: boolean) => (params: (number | number[])[]): boolean => {
    const b = term.buffer.active;
    if (params[0] !== 1 || b.cursorX + 1 < term.cols || b.cursorY + 1 < b.length) return false;
    const input = inputOf(term);
    if (!eraseReachable(term)) return false;
    const y = b.cursorY;
    input!._eraseInBufferLine!.call(input, y, 0, term.cols, true, respectProtect);
    for (let row = y; row--;) input!._resetBufferLine!.call(input, row, respectProtect);
    input!._dirtyRowTracker!.markDirty(0);
    input!._dirtyRowTracker!.markDirty(y);
    return true;
  };
  term.parser.registerCsiHandler({ final: 'J' }, erase(false));
  term.parser.registerCsiHandler({ prefix: '?', final: 'J' }, erase(true));
}

/** Whether `term`'s parser still has the erase steps the mend runs (false: a version moved them). */
export function eraseReachable(term: ErasingTerminal): boolean {
  const input = inputOf(term);
  return typeof input?._eraseInBufferLine === 'function' && typeof input._resetBufferLine === 'function' && typeof input._dirtyRowTracker?.markDirty === 'function';
}
