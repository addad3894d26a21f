/**
 * One seat's terminal: the PTY, its screen model, and the output path. Bytes from the PTY go
 * into the model; once the model has parsed them they leave as kind-4 frames, so a repaint
 * taken between two parses is exactly the state the next frame continues from.
 */
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import nodePty from 'node-pty';
import type { IPty } from 'node-pty';
import { FRAME_FLAG_KEYFRAME, TERM_HEADER_BYTES, writeTermHeader } from '../../shared/protocol.js';
import type { FromPty, OpenSpec, TermFacts } from './protocol.js';
import { ModeWatch, repaint, screenText } from './screen.js';
import { PromptMarks } from './marks.js';
import { readLineModes, secretWanted } from './echo.js';
import type { ShellLaunch } from './shell.js';

/** Model backlog that pauses the PTY, bytes: a flood waits in the kernel, not in the server's memory. */
export const MODEL_BACKLOG_HIGH_BYTES = 1024 * 1024;
/** Model backlog at which a paused PTY resumes, bytes. */
export const MODEL_BACKLOG_LOW_BYTES = 256 * 1024;
/** Largest output frame, bytes: bigger batches are split so one frame never stalls a phone. */
export const OUTPUT_FRAME_MAX_BYTES = 256 * 1024;
/** Scrollback rows the model keeps: what a repaint and a command's output can reach back to. */
export const MODEL_SCROLLBACK_ROWS = 5000;
/** Output silence before termios is read for a password prompt, ms. */
const ECHO_CHECK_AFTER_MS = 120;

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;
type Post = (m: FromPty, transfer?: ArrayBuffer[]) => void;

export class SeatTerminal {
  readonly model: InstanceType<typeof Terminal>;
  readonly marks: PromptMarks;
  readonly startedAt = Date.now();
  lastOutputAt = Date.now();
  /** A `run` from the agent is in flight. */
  running = false;
  exited = false;
  /** Forge installed prompt marks in this shell: its first prompt will carry one. */
  readonly expectMarks: boolean;
  private readonly pty: IPty;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private readonly modes: ModeWatch;
  private seq = 0;
  private backlog = 0;
  private modelBehind = false;
  private holderBehind = false;
  private paused = false;
  private viewers = 0;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private flushQueued = false;
  private password = false;
  private echoTimer?: NodeJS.Timeout;
  private lastFacts = '';

  constructor(readonly spec: OpenSpec, launch: ShellLaunch, private readonly post: Post) {
    this.expectMarks = launch.marks;
    this.model = new Terminal({ cols: spec.cols, rows: spec.rows, scrollback: MODEL_SCROLLBACK_ROWS, allowProposedApi: true });
    this.serializer = new SerializeAddon();
    this.model.loadAddon(this.serializer as never);
    this.modes = new ModeWatch(this.model);
    this.marks = new PromptMarks(this.model);
    this.marks.onChange(() => this.pushFacts());
    this.model.onTitleChange(() => this.pushFacts());
    this.pty = nodePty.spawn(launch.file, launch.args, {
      name: 'xterm-256color', cols: spec.cols, rows: spec.rows, cwd: spec.cwd, env: launch.env, encoding: null,
    });
    this.pty.onData((d) => this.onPtyData(d as unknown as Buffer));
    this.pty.onExit(({ exitCode, signal }) => {
      this.exited = true;
      // Let the model finish what the shell wrote before it left.
      this.model.write('', () => {
        this.flush();
        clearTimeout(this.echoTimer);
        this.post({ t: 'exited', id: spec.id, code: exitCode, signal: signal ?? null });
        this.model.dispose();
      });
    });
  }

  get pid(): number { return this.pty.pid; }

  write(data: string): void {
    if (!this.exited) this.pty.write(data);
  }

  get appCursor(): boolean { return this.model.modes.applicationCursorKeysMode; }

  resize(cols: number, rows: number): void {
    if (this.exited || (cols === this.model.cols && rows === this.model.rows)) return;
    this.pty.resize(cols, rows);
    this.model.resize(cols, rows);
    this.pushFacts();
  }

  setViewers(count: number): void {
    this.viewers = count;
    if (count === 0) { this.batch = []; this.batchBytes = 0; }
  }

  setHolderBehind(behind: boolean): void {
    this.holderBehind = behind;
    this.updateFlow();
  }

  /** Resolves once the model has parsed every byte received so far. */
  settled(): Promise<void> {
    return new Promise((r) => this.model.write('', r));
  }

  /** Answers with a keyframe for `viewer` at the point in the stream where this call lands. */
  repaint(viewer: number): void {
    this.model.write('', () => {
      this.flush();
      const bytes = Buffer.from(repaint(this.serializer, this.modes), 'utf8');
      const frame = this.frame(bytes, FRAME_FLAG_KEYFRAME, this.seq);
      this.post({ t: 'repaint', id: this.spec.id, viewer, cols: this.model.cols, rows: this.model.rows, frame }, [frame.buffer as ArrayBuffer]);
    });
  }

  screen(): { text: string; cursor: { x: number; y: number; visible: boolean } } {
    const buf = this.model.buffer.active;
    return { text: screenText(buf, this.model.rows), cursor: { x: buf.cursorX, y: buf.cursorY, visible: this.modes.cursorVisible } };
  }

  facts(): TermFacts {
    return {
      busy: this.running || this.marks.running,
      password: this.password,
      marks: this.marks.seen,
      title: this.modes.title,
      altScreen: this.model.buffer.active.type === 'alternate',
      cols: this.model.cols,
      rows: this.model.rows,
    };
  }

  pushFacts(): void {
    if (this.exited) return;
    const facts = this.facts();
    const key = JSON.stringify(facts);
    if (key === this.lastFacts) return;
    this.lastFacts = key;
    this.post({ t: 'facts', id: this.spec.id, facts });
  }

  /** Reads termios now: whether a program is reading a secret. */
  async checkEcho(): Promise<boolean> {
    if (this.exited) return false;
    const wanted = secretWanted(await readLineModes((this.pty as IPty & { ptsName: string }).ptsName));
    if (wanted !== this.password) {
      this.password = wanted;
      this.pushFacts();
    }
    return wanted;
  }

  kill(): void {
    if (!this.exited) this.pty.kill('SIGHUP');
  }

  private onPtyData(d: Buffer): void {
    this.lastOutputAt = Date.now();
    this.backlog += d.length;
    this.model.write(d, () => {
      this.backlog -= d.length;
      if (this.viewers > 0) {
        this.batch.push(d);
        this.batchBytes += d.length;
        if (this.batchBytes >= OUTPUT_FRAME_MAX_BYTES) this.flush();
        else if (!this.flushQueued) { this.flushQueued = true; setImmediate(() => this.flush()); }
      }
      this.updateFlow();
    });
    this.updateFlow();
    // One timer per quiet spell, not one per chunk: a flood re-arms it only when it fires.
    this.echoTimer ??= setTimeout(() => this.echoDue(), ECHO_CHECK_AFTER_MS);
  }

  private echoDue(): void {
    const quietFor = Date.now() - this.lastOutputAt;
    if (quietFor < ECHO_CHECK_AFTER_MS) {
      this.echoTimer = setTimeout(() => this.echoDue(), ECHO_CHECK_AFTER_MS - quietFor);
      return;
    }
    this.echoTimer = undefined;
    void this.checkEcho();
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.batchBytes === 0) return;
    const bytes = this.batch.length === 1 ? this.batch[0] : Buffer.concat(this.batch, this.batchBytes);
    this.batch = [];
    this.batchBytes = 0;
    const frame = this.frame(bytes, 0, ++this.seq);
    this.post({ t: 'output', id: this.spec.id, frame }, [frame.buffer as ArrayBuffer]);
  }

  private frame(bytes: Uint8Array, flags: number, seq: number): Uint8Array {
    const frame = new Uint8Array(TERM_HEADER_BYTES + bytes.byteLength);
    const view = new DataView(frame.buffer);
    writeTermHeader(view, this.spec.id, seq >>> 0);
    view.setUint8(1, flags);
    frame.set(bytes, TERM_HEADER_BYTES);
    return frame;
  }

  private updateFlow(): void {
    if (this.backlog > MODEL_BACKLOG_HIGH_BYTES) this.modelBehind = true;
    else if (this.backlog < MODEL_BACKLOG_LOW_BYTES) this.modelBehind = false;
    const pause = this.modelBehind || this.holderBehind;
    if (pause === this.paused || this.exited) return;
    this.paused = pause;
    if (pause) this.pty.pause(); else this.pty.resume();
  }
}
