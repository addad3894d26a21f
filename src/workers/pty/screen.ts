/**
 * The screen model's extras: the modes the serialize addon leaves out (cursor visibility and
 * style, mouse encoding, title), watched as the model parses them, and the repaint that puts
 * a fresh terminal of the same size into the same state, cell by cell and mode by mode.
 */
import type { Terminal, IBuffer } from '@xterm/headless';
import type { SerializeAddon } from '@xterm/addon-serialize';

/** Scrollback rows carried in a repaint: enough to scroll back a few screens, small enough for a phone. */
export const REPAINT_SCROLLBACK_ROWS = 1000;

/** Mouse encodings (DECSET numbers); the tracking mode itself is serialized by the addon. */
const MOUSE_ENCODINGS = [1005, 1006, 1015, 1016];

export class ModeWatch {
  cursorVisible = true;
  /** DECSCUSR parameter; 0 is the terminal's default shape. */
  cursorStyle = 0;
  mouseEncoding = 0;
  title = '';

  constructor(model: Terminal) {
    const decset = (on: boolean) => (params: (number | number[])[]): boolean => {
      for (const p of params) {
        const n = typeof p === 'number' ? p : p[0];
        if (n === 25) this.cursorVisible = on;
        else if (MOUSE_ENCODINGS.includes(n)) this.mouseEncoding = on ? n : (this.mouseEncoding === n ? 0 : this.mouseEncoding);
      }
      return false; // the model's own handler runs too
    };
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
    this.mouseEncoding = 0;
    this.title = '';
  }

  /** The VT sequences that restore what serialize leaves out; appended after the serialized screen. */
  sequences(): string {
    let s = '';
    if (this.title) s += `\x1b]2;${this.title.replace(/[\x00-\x1f\x7f]/g, '')}\x07`;
    if (this.mouseEncoding) s += `\x1b[?${this.mouseEncoding}h`;
    if (this.cursorStyle) s += `\x1b[${this.cursorStyle} q`;
    if (!this.cursorVisible) s += '\x1b[?25l';
    return s;
  }
}

/** The repaint: the serialized screen (both buffers, modes) plus what serialize leaves out. */
export function repaint(serializer: SerializeAddon, modes: ModeWatch): string {
  return serializer.serialize({ scrollback: REPAINT_SCROLLBACK_ROWS }) + modes.sequences();
}

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
