/**
 * OSC 133 prompt marks as the model parses them: A prompt start, B input start, C output start,
 * D;status command done. A command's output is the screen text between its C and its D, read
 * from the model at the moment D is parsed, so it is exact down to the cell.
 */
import type { Terminal, IMarker } from '@xterm/headless';
import { textBetween } from './screen.js';

/** Output kept from one command, characters: the tail is kept, the agent is told it was cut. */
export const COMMAND_OUTPUT_MAX_CHARS = 100_000;

/**
 * How long a line sent to the shell at its prompt counts as a command about to start, ms, until
 * the shell marks its start (C) or a new prompt (A). A busy machine's shell may take a second to
 * read the line, and a wait for "done" in that gap must not answer for the command before it; a
 * line the shell does not run at once (a continuation prompt) stops counting past it.
 */
export const COMMAND_START_GRACE_MS = 3_000;

export interface CommandDone { exit: number | null; output: string; cut: boolean }

export class PromptMarks {
  /** The shell has emitted at least one mark: waits are exact from here on. */
  seen = false;
  /** C seen without its D: a command is running. */
  running = false;
  /** Completed commands so far; a waiter compares counts, so no D is missed between checks. */
  doneCount = 0;
  lastDone: CommandDone | null = null;
  /** When a line was last sent at the prompt whose command has not started yet (0: none). */
  private submittedAt = 0;
  private outputStart: { marker: IMarker; col: number } | null = null;
  /**
   * Lines scrolled since the running command last erased the screen (`clear`, ED 2 or 3, a reset),
   * or null if it has not. An erase drops the output's start marker with the rows it was on, so the
   * output is read from the erased screen's top, found this many rows above the screen's top now.
   */
  private scrolledSinceErase: number | null = null;
  /** The running command reset the terminal (ESC c): the model's buffers are new, and the output's start marker points into the old one. */
  private resetSinceStart = false;
  private listeners: Array<() => void> = [];

  constructor(private readonly model: Terminal) {
    model.parser.registerOscHandler(133, (data) => {
      this.onMark(data);
      return true;
    });
    // Seen before the erase runs (false: the model's own handler runs next).
    const erased = (): boolean => {
      if (this.running) this.scrolledSinceErase = 0;
      return false;
    };
    model.parser.registerCsiHandler({ final: 'J' }, (params) => (params[0] === 2 || params[0] === 3 ? erased() : false));
    model.parser.registerEscHandler({ final: 'c' }, () => {
      if (this.running) this.resetSinceStart = true;
      return erased();
    });
    // A line scrolled in puts the screen's top at row 1 or below; the erase or reset itself moves it to 0.
    model.onScroll((top) => { if (this.scrolledSinceErase !== null && top > 0) this.scrolledSinceErase++; });
  }

  /** Called after every mark; listeners re-check their own condition. */
  onChange(cb: () => void): () => void {
    this.listeners.push(cb);
    return () => { this.listeners = this.listeners.filter((l) => l !== cb); };
  }

  /** A line (its Enter) was sent to the shell: at a marked prompt, its command is about to start. */
  submitted(): void {
    if (this.seen && !this.running) this.submittedAt = Date.now();
  }

  /** A line sent at the prompt has not started its command yet, within COMMAND_START_GRACE_MS. */
  starting(): boolean {
    return this.submittedAt > 0 && Date.now() - this.submittedAt < COMMAND_START_GRACE_MS;
  }

  private onMark(data: string): void {
    const [kind, ...rest] = data.split(';');
    const buf = this.model.buffer.active;
    this.seen = true;
    if (kind === 'C' || kind === 'A') this.submittedAt = 0;
    if (kind === 'C') {
      this.running = true;
      this.scrolledSinceErase = null;
      this.resetSinceStart = false;
      this.outputStart?.marker.dispose();
      const marker = this.model.registerMarker(0);
      this.outputStart = marker ? { marker, col: buf.cursorX } : null;
    } else if (kind === 'D') {
      const code = rest.length && rest[0] !== '' ? Number(rest[0]) : null;
      let output = '';
      let scrolledOff = false;
      const start = this.outputStart;
      if (start && this.running && (start.marker.isDisposed || this.resetSinceStart) && this.scrolledSinceErase !== null) {
        // The command erased the screen: its output is what it wrote from the erased screen's top on.
        const top = buf.baseY - this.scrolledSinceErase;
        scrolledOff = top < 0;
        output = textBetween(buf, Math.max(0, top), 0, buf.baseY + buf.cursorY, buf.cursorX).replace(/^\n+/, '');
      } else if (start && this.running) {
        // Output longer than the scrollback pushed its start out of the model: keep what is left.
        scrolledOff = start.marker.isDisposed;
        output = scrolledOff
          ? textBetween(buf, 0, 0, buf.baseY + buf.cursorY, buf.cursorX)
          : textBetween(buf, start.marker.line, start.col, buf.baseY + buf.cursorY, buf.cursorX);
      }
      this.scrolledSinceErase = null;
      this.resetSinceStart = false;
      start?.marker.dispose();
      this.outputStart = null;
      const cut = scrolledOff || output.length > COMMAND_OUTPUT_MAX_CHARS;
      if (cut) output = output.slice(-COMMAND_OUTPUT_MAX_CHARS);
      this.lastDone = { exit: code !== null && Number.isFinite(code) ? code : null, output: output.replace(/\n+$/, ''), cut };
      this.running = false;
      this.doneCount++;
    } else if (kind === 'A') {
      this.running = false;
    }
    for (const l of [...this.listeners]) l();
  }
}
