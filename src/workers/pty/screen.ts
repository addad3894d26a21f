/**
 * The screen model's extras: the modes the serialize addon leaves out (cursor visibility, style
 * and blink, mouse encoding, title, kitty keyboard flags, synchronized output, the scroll region,
 * the DEC line-drawing character sets), watched as the model parses them, and the repaint that
 * puts a fresh terminal of the same size into the same state, cell by cell and mode by mode.
 */
import type { Terminal, IBuffer } from '@xterm/headless';
import type { SerializeAddon } from '@xterm/addon-serialize';
import unicode11 from '@xterm/addon-unicode11';
import { charsetLevel, scrollRegion } from './model-internals.js';

/**
 * Gives the model the character widths the web client draws with (Unicode 11, as shells and
 * modern terminals count: an emoji takes two cells). With xterm's default table an emoji takes
 * one, and every line holding one would be a column off between the repaint and the client.
 */
export function useClientWidths(term: Terminal): void {
  term.loadAddon(new unicode11.Unicode11Addon() as never);
  term.unicode.activeVersion = '11';
}

/** Scrollback rows carried in a repaint: enough to scroll back a few screens, small enough for a phone. */
export const REPAINT_SCROLLBACK_ROWS = 1000;

/** Mouse encodings (DECSET numbers); the tracking mode itself is serialized by the addon. */
const MOUSE_ENCODINGS = [1005, 1006, 1015, 1016];
/** Kitty keyboard flag entries a program may push, as kitty bounds its own stack. */
export const KITTY_STACK_MAX = 16;


export class ModeWatch {
  cursorVisible = true;
  /** DECSCUSR parameter; 0 is the terminal's default shape. */
  cursorStyle = 0;
  /** DECSET 12 was set (a blinking cursor asked for by the program). */
  cursorBlink = false;
  mouseEncoding = 0;
  title = '';
  /** Kitty keyboard progressive-enhancement flags: the base, then what programs pushed on it. */
  kittyBase = 0;
  kittyStack: number[] = [];
  /** G0 and G1 designated as DEC special graphics (line drawing). */
  lineDrawing: [boolean, boolean] = [false, false];

  constructor(private readonly model: Terminal) {
    const decset = (on: boolean) => (params: (number | number[])[]): boolean => {
      for (const p of params) {
        const n = typeof p === 'number' ? p : p[0];
        if (n === 25) this.cursorVisible = on;
        else if (n === 12) this.cursorBlink = on;
        else if (MOUSE_ENCODINGS.includes(n)) this.mouseEncoding = on ? n : (this.mouseEncoding === n ? 0 : this.mouseEncoding);
      }
      return false; // the model's own handler runs too
    };
    const num = (params: (number | number[])[], i: number, dflt: number): number => {
      const p = params[i];
      const n = typeof p === 'number' ? p : p?.[0];
      return n === undefined || n < 0 ? dflt : n;
    };
    // Kitty keyboard protocol: CSI > flags u pushes, CSI < n u pops, CSI = flags ; mode u sets.
    model.parser.registerCsiHandler({ prefix: '>', final: 'u' }, (params) => {
      this.kittyStack.push(num(params, 0, 0));
      if (this.kittyStack.length > KITTY_STACK_MAX) this.kittyStack.shift();
      return true;
    });
    model.parser.registerCsiHandler({ prefix: '<', final: 'u' }, (params) => {
      this.kittyStack.splice(Math.max(0, this.kittyStack.length - Math.max(1, num(params, 0, 1))));
      return true;
    });
    model.parser.registerCsiHandler({ prefix: '=', final: 'u' }, (params) => {
      const flags = num(params, 0, 0);
      const mode = num(params, 1, 1);
      const top = this.kittyStack.length ? this.kittyStack[this.kittyStack.length - 1] : this.kittyBase;
      const next = mode === 2 ? top | flags : mode === 3 ? top & ~flags : flags;
      if (this.kittyStack.length) this.kittyStack[this.kittyStack.length - 1] = next; else this.kittyBase = next;
      return true;
    });
    for (const [g, intermediates] of [[0, '('], [1, ')']] as const) {
      for (const final of ['0', 'A', 'B', '4', 'C', '5', 'R', 'f', 'Q', '9', 'K', 'Y', '`', 'E', '6', 'Z', 'H', '7', '=', '<', '>']) {
        model.parser.registerEscHandler({ intermediates, final }, () => { this.lineDrawing[g] = final === '0'; return false; });
      }
    }
    model.parser.registerCsiHandler({ prefix: '?', final: 'h' }, decset(true));
    model.parser.registerCsiHandler({ prefix: '?', final: 'l' }, decset(false));
    model.parser.registerCsiHandler({ intermediates: ' ', final: 'q' }, (params) => {
      const n = params[0];
      this.cursorStyle = typeof n === 'number' ? n : 0;
      return false;
    });
    // A full reset (RIS) or soft reset (DECSTR) puts these back too.
    model.parser.registerEscHandler({ final: 'c' }, () => { this.reset(); return false; });
    model.parser.registerCsiHandler({ intermediates: '!', final: 'p' }, () => { this.cursorVisible = true; this.cursorStyle = 0; return false; });
    model.onTitleChange((t) => { this.title = t; });
  }

  reset(): void {
    this.cursorVisible = true;
    this.cursorStyle = 0;
    this.cursorBlink = false;
    this.mouseEncoding = 0;
    this.title = '';
    this.kittyBase = 0;
    this.kittyStack = [];
    this.lineDrawing = [false, false];
  }

  /** The active buffer's scroll region, 0-based rows, as the model holds it. */
  scrollRegion(): { top: number; bottom: number } {
    return scrollRegion(this.model) ?? { top: 0, bottom: this.model.rows - 1 };
  }

  /** The shifted character set (SO selects G1): 0 or 1. */
  charsetLevel(): number {
    return charsetLevel(this.model);
  }

  /** The VT sequences that restore what serialize leaves out; appended after the serialized screen. */
  sequences(): string {
    let s = '';
    const region = this.scrollRegion();
    // DECSTBM homes the cursor: save it around the margins (DECSC also keeps the pen).
    if (region.top !== 0 || region.bottom !== this.model.rows - 1) s += `\x1b7\x1b[${region.top + 1};${region.bottom + 1}r\x1b8`;
    if (this.lineDrawing[0]) s += '\x1b(0';
    if (this.lineDrawing[1]) s += '\x1b)0';
    if (this.charsetLevel() === 1) s += '\x0e';
    if (this.title) s += `\x1b]2;${this.title.replace(/[\x00-\x1f\x7f]/g, '')}\x07`;
    if (this.mouseEncoding) s += `\x1b[?${this.mouseEncoding}h`;
    if (this.cursorStyle) s += `\x1b[${this.cursorStyle} q`;
    if (this.cursorBlink) s += '\x1b[?12h';
    if (!this.cursorVisible) s += '\x1b[?25l';
    if (this.kittyBase) s += `\x1b[=${this.kittyBase};1u`;
    for (const f of this.kittyStack) s += `\x1b[>${f}u`;
    // Last: a program inside a synchronized update is still inside it on the fresh screen.
    if (this.model.modes.synchronizedOutputMode) s += '\x1b[?2026h';
    return s;
  }
}

/** The repaint: the serialized screen (both buffers, modes) plus what serialize leaves out. */
export function repaint(serializer: SerializeAddon, modes: ModeWatch): string {
  // The addon draws the alternate screen after the normal one's pen without resetting it: reset it.
  const screen = serializer.serialize({ scrollback: REPAINT_SCROLLBACK_ROWS }).replace(ALT_SCREEN_START, `${ALT_SCREEN_START}\x1b[0m`);
  return screen + modes.sequences();
}

/** How the serialize addon starts the alternate screen's part of a repaint. */
const ALT_SCREEN_START = '\x1b[?1049h';

/** Text of the buffer from (startRow, startCol) to (endRow, endCol), absolute rows; wrapped rows join. */
export function textBetween(buffer: IBuffer, startRow: number, startCol: number, endRow: number, endCol: number): string {
  let out = '';
  for (let row = Math.max(0, startRow); row <= endRow; row++) {
    const line = buffer.getLine(row);
    if (!line) continue;
    const from = row === startRow ? startCol : 0;
    const to = row === endRow ? endCol : undefined;
    if (row === endRow && to === 0) break;
    const piece = line.translateToString(true, from, to);
    const next = buffer.getLine(row + 1);
    out += piece;
    if (row < endRow && !(next?.isWrapped)) out += '\n';
  }
  return out;
}

/** The visible screen as text, one line per row, trailing blanks trimmed, trailing empty rows dropped. */
export function screenText(buffer: IBuffer, rows: number): string {
  const lines: string[] = [];
  for (let y = 0; y < rows; y++) lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}
