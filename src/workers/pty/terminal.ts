/**
 * One seat's terminal: the PTY, its screen model, and the output path. Bytes from the PTY are
 * gathered for a moment, then leave as one kind-4 frame for every viewer and, in the same step,
 * go to the model's feed (which parses a flood in big batches and skips what would scroll past
 * the scrollback): viewers never wait on the model's parse. A repaint holds the PTY
 * and further frames until the model has parsed every byte already framed, so it is exactly the
 * state the next frame continues from (its sequence number is the last frame's).
 */
import { readlinkSync } from 'node:fs';
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import nodePty from 'node-pty';
import type { IPty } from 'node-pty';
import { FRAME_FLAG_KEYFRAME, TERM_HEADER_BYTES, writeTermHeader } from '../../shared/protocol.js';
import type { FromPty, OpenSpec, PtyToRelay, ShellExit, TermFacts } from './protocol.js';
import { ModeWatch, repaint, screenText, useClientWidths } from './screen.js';
import { PromptMarks } from './marks.js';
import { readLineModes, secretWanted } from './echo.js';
import { ModelFeed } from './feed.js';
import { takeFrame } from './frame-pool.js';
import { CountClamp } from './counts.js';
import { boundRepeats } from '../../shared/term-repeats.js';
import { mendEraseAbove } from '../../shared/term-erase-above.js';
import { dropLinksOnReset } from '../../shared/term-link-reset.js';
import { guardHandlers, type CaughtThrow } from '../../shared/term-handler-guard.js';
import type { ShellLaunch } from './shell.js';

/**
 * Model backlog that pauses the PTY, bytes: a flood waits in the kernel, not in the server's
 * memory. Above the feed's flood batch (MODEL_FLOOD_BATCH_BYTES), so a batch gathers whole.
 */
export const MODEL_BACKLOG_HIGH_BYTES = 4 * 1024 * 1024;
/** Model backlog at which a paused PTY resumes, bytes. */
export const MODEL_BACKLOG_LOW_BYTES = 1024 * 1024;
/** Largest output frame, bytes: a batch this big leaves at once, so one frame never stalls a phone. */
export const OUTPUT_FRAME_MAX_BYTES = 256 * 1024;
/**
 * Gathering window while output streams, ms, under one 60 Hz frame: a flood leaves as a few large
 * frames (fewer messages, fewer acks, bigger model batches; 10 viewers' server CPU per MB measured
 * ~20% lower at 16 ms than at 4 ms) instead of one per 4 KB PTY read. Output after a quiet spell
 * or after a few small frames (echoed keystrokes) leaves on the next turn of the event loop.
 */
export const OUTPUT_GATHER_MS = 10;
/**
 * Bytes sent in one streak of frames (each within two gathering windows of the last) that say
 * output is streaming. A PTY read brings at most 4095 bytes, so a size test on one frame alone
 * missed a flood whose reads each left before the next arrived (measured: 4 KB frames, 5x the
 * messages and acks, on a busy machine); a streak counts them together.
 */
export const OUTPUT_STREAMING_BYTES = 4096;
/**
 * Scrollback rows the model keeps: what a repaint and a command's output can reach back to (a
 * command's output is cut at COMMAND_OUTPUT_MAX_CHARS anyway, ~2000 lines of 50 characters).
 * Parsing a flood costs ~30% more CPU per MB with 5000 rows than with 2000 (22.5 vs 30.9 ms/MB,
 * medians of three `cat` floods side by side); 1000 rows measured no cheaper than 2000.
 */
export const MODEL_SCROLLBACK_ROWS = 2000;
/**
 * Shortest spell between two reports of sequences the model could not draw, ms: the first is said
 * at once, a run of them (a program that keeps sending one) as a count, not a message each.
 */
export const MODEL_UNDRAWN_REPORT_MS = 1000;
/** Output silence before termios is read for a password prompt, ms. */
const ECHO_CHECK_AFTER_MS = 120;

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;
/** Posts to the main thread, or (output and repaints) to the relay's terminal port. */
type Post = (m: FromPty | PtyToRelay, transfer?: ArrayBuffer[]) => void;

/**
 * Tests only: a resize to this many columns fails as the screen model's reflow once did (a defect
 * of the model that only a long random history reproduces). Unset, nothing changes.
 */
const MODEL_FAULT_COLS = Number(process.env.FORGE_TEST_MODEL_FAULT_COLS ?? 0);
/**
 * Tests only: an OSC of this number makes the model's handler throw, as xterm.js's erase above
 * once did (that one is mended, and no other sequence the fuzz has found throws). Read as each
 * terminal starts. Unset, nothing changes.
 */
const modelThrowOsc = (): number => Number(process.env.FORGE_TEST_MODEL_THROW_OSC ?? 0);

export class SeatTerminal {
  readonly model: InstanceType<typeof Terminal>;
  readonly marks: PromptMarks;
  readonly startedAt = Date.now();
  lastOutputAt = Date.now();
  /** A `run` from the agent is in flight. */
  running = false;
  exited = false;
  /** How the shell ended, once it has: what an agent's run or wait that it cut short answers. */
  exitedWith: ShellExit | undefined;
  /** Forge installed prompt marks in this shell: its first prompt will carry one. */
  readonly expectMarks: boolean;
  private readonly pty: IPty;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private readonly modes: ModeWatch;
  private readonly feed: ModelFeed;
  private seq = 0;
  private modelBehind = false;
  private holderBehind = false;
  private paused = false;
  private viewers = 0;
  private batch: Uint8Array[] = [];
  /** Bounds the counts of sequences the model and the viewers' terminals run once per count. */
  private readonly counts = new CountClamp();
  private batchBytes = 0;
  private flushQueued = false;
  private lastFlushAt = 0;
  /** Bytes in the current streak of frames: see OUTPUT_STREAMING_BYTES. */
  private streakBytes = 0;
  /** Repaints waiting for the model: no frame leaves until they are sent (the PTY is held past one frame's worth). */
  private repaintsWaiting = 0;
  /** The screen the last repaint serialized, kept until the model changes: repaints asked for together (a storm of watchers caught up at once) serialize once. */
  private sharedRepaint: Buffer | null = null;
  /** Screens serialized for repaints; a shared one counts once. */
  serializations = 0;
  private disposed = false;
  private password = false;
  private echoTimer?: NodeJS.Timeout;
  private lastFacts = '';
  private markGone!: () => void;
  /** Resolves once the shell's exit was seen and reported: node-pty holds nothing of it any more. */
  readonly gone = new Promise<void>((r) => { this.markGone = r; });

  constructor(readonly spec: OpenSpec, launch: ShellLaunch, private readonly post: Post) {
    this.expectMarks = launch.marks;
    this.model = new Terminal({ cols: spec.cols, rows: spec.rows, scrollback: MODEL_SCROLLBACK_ROWS, allowProposedApi: true });
    useClientWidths(this.model);
    boundRepeats(this.model);
    mendEraseAbove(this.model);
    dropLinksOnReset(this.model);
    this.serializer = new SerializeAddon();
    this.model.loadAddon(this.serializer as never);
    this.feed = new ModelFeed(this.model, MODEL_SCROLLBACK_ROWS);
    this.modes = new ModeWatch(this.model);
    this.marks = new PromptMarks(this.model);
    this.marks.onChange(() => this.pushFacts());
    this.model.onTitleChange(() => this.pushFacts());
    const throwOsc = modelThrowOsc();
    if (throwOsc) this.model.parser.registerOscHandler(throwOsc, () => { throw new TypeError('a handler failed (FORGE_TEST_MODEL_THROW_OSC)'); });
    // Last, so every handler above is guarded too: a sequence the model cannot take is skipped, said, and the rest drawn.
    guardHandlers(this.model, (c) => this.undrawnSeen(c));
    this.pty = nodePty.spawn(launch.file, launch.args, {
      name: 'xterm-256color', cols: spec.cols, rows: spec.rows, cwd: spec.cwd, env: launch.env, encoding: null,
    });
    this.pty.onData((d) => this.onPtyData(d as unknown as Buffer));
    this.pty.onExit(({ exitCode, signal }) => {
      this.exited = true;
      this.exitedWith = { code: exitCode, signal: signal || null };
      // Let the model finish what the shell wrote before it left.
      void this.settled().then(() => {
        clearTimeout(this.echoTimer);
        clearTimeout(this.undrawnTimer);
        this.post({ t: 'exited', id: spec.id, code: exitCode, signal: signal ?? null });
        this.disposed = true;
        this.feed.dispose();
        this.model.dispose();
        this.markGone();
      });
    });
  }

  get pid(): number { return this.pty.pid; }

  write(data: string): void {
    if (this.exited) return;
    if (/[\r\n]/.test(data)) this.marks.submitted();
    this.pty.write(data);
  }

  get appCursor(): boolean { return this.model.modes.applicationCursorKeysMode; }

  resize(cols: number, rows: number): void {
    if (this.exited || (cols === this.model.cols && rows === this.model.rows)) return;
    this.pty.resize(cols, rows);
    if (MODEL_FAULT_COLS && cols === MODEL_FAULT_COLS) throw new TypeError("Cannot read properties of undefined (reading 'replaceCells')");
    this.model.resize(cols, rows);
    this.sharedRepaint = null;
    this.pushFacts();
  }

  setViewers(count: number): void {
    this.viewers = count;
  }

  setHolderBehind(behind: boolean): void {
    this.holderBehind = behind;
    this.updateFlow();
  }

  /** Resolves once the model has parsed every byte received so far. */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      const step = (): void => {
        // A waiting repaint holds the bytes gathered meanwhile; they go after it is sent.
        if (this.repaintsWaiting > 0) { this.feed.afterParsed(step); return; }
        this.flush();
        this.feed.afterParsed(resolve);
      };
      step();
    });
  }

  /**
   * Answers with a keyframe for `viewer` at the point in the stream where this call lands: every
   * byte received so far is framed, further frames are held (and the PTY, past one frame's worth),
   * and once the model has parsed all of it the screen is serialized and sent, carrying the last
   * frame's sequence number.
   */
  repaint(viewer: number): void {
    this.flush();
    this.repaintsWaiting++;
    this.updateFlow();
    this.feed.afterParsed(() => {
      if (!this.exited) {
        if (!this.sharedRepaint) {
          this.sharedRepaint = Buffer.from(repaint(this.serializer, this.modes), 'utf8');
          this.serializations++;
        }
        const frame = this.frame([this.sharedRepaint], this.sharedRepaint.byteLength, FRAME_FLAG_KEYFRAME, this.seq);
        this.post({ t: 'repaint', id: this.spec.id, viewer, cols: this.model.cols, rows: this.model.rows, frame }, [frame.buffer as ArrayBuffer]);
      }
      this.repaintsWaiting--;
      this.updateFlow();
      if (this.repaintsWaiting === 0 && this.batchBytes) this.scheduleFlush();
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
      cwd: this.cwdNow(),
    };
  }

  /** The shell's working directory, as its process has it; where it started when that cannot be read (it has exited). */
  private cwdNow(): string {
    if (this.exited) return this.spec.cwd;
    try { return readlinkSync(`/proc/${this.pty.pid}/cwd`); } catch { return this.spec.cwd; }
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
    const wanted = secretWanted(await readLineModes(this.pty as IPty & { fd?: number; ptsName: string }));
    if (wanted !== this.password) {
      this.password = wanted;
      this.pushFacts();
    }
    return wanted;
  }

  /** Hangs up the shell (it passes the hang-up to its jobs); SIGKILL for one that outlived it. */
  kill(signal: 'SIGHUP' | 'SIGKILL' = 'SIGHUP'): void {
    if (this.exited) return;
    try { this.pty.kill(signal); } catch { /* exited meanwhile */ }
  }

  private undrawnCount = 0;
  private undrawnLast: CaughtThrow = { where: '', message: '' };
  private undrawnTimer?: NodeJS.Timeout;
  private undrawnPosted = 0;

  /** A sequence the model could not draw: said to the main thread at once, then at most once a MODEL_UNDRAWN_REPORT_MS. */
  private undrawnSeen(c: CaughtThrow): void {
    this.undrawnCount++;
    this.undrawnLast = c;
    if (this.undrawnTimer) return;
    const report = (): void => {
      this.undrawnTimer = undefined;
      if (this.undrawnPosted === this.undrawnCount || this.disposed) return;
      this.undrawnPosted = this.undrawnCount;
      this.post({ t: 'undrawn', id: this.spec.id, count: this.undrawnCount, ...this.undrawnLast });
      this.undrawnTimer = setTimeout(report, MODEL_UNDRAWN_REPORT_MS);
    };
    report();
  }

  private onPtyData(read: Buffer): void {
    this.lastOutputAt = Date.now();
    // The viewers and the model see the same bytes, with every run-once-per-count sequence bounded.
    const d = this.counts.pass(read);
    if (d.length === 0) return;
    this.batch.push(d);
    this.batchBytes += d.length;
    if (this.batchBytes >= OUTPUT_FRAME_MAX_BYTES) { this.flush(); this.updateFlow(); } else this.scheduleFlush();
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

  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    const wait = this.streakBytes >= OUTPUT_STREAMING_BYTES ? this.lastFlushAt + OUTPUT_GATHER_MS - performance.now() : 0;
    if (wait <= 0) setImmediate(() => this.flushDue());
    else setTimeout(() => this.flushDue(), wait);
  }

  private flushDue(): void {
    this.flushQueued = false;
    this.flush();
  }

  /**
   * Sends the gathered bytes as one frame to the viewers and one batch to the model, so the model
   * holds exactly the framed bytes. Held while a repaint waits: its frame goes first.
   */
  private flush(): void {
    if (this.batchBytes === 0 || this.repaintsWaiting > 0 || this.disposed) return;
    const n = this.batchBytes;
    // The PTY's reads go as they are: copied once into the frame, and to the model's feed, which
    // joins only what it parses.
    const reads = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    const now = performance.now();
    this.streakBytes = now - this.lastFlushAt < 2 * OUTPUT_GATHER_MS ? this.streakBytes + n : n;
    this.lastFlushAt = now;
    if (this.viewers > 0) {
      const frame = this.frame(reads, n, 0, ++this.seq);
      this.post({ t: 'output', id: this.spec.id, frame }, [frame.buffer as ArrayBuffer]);
    }
    this.sharedRepaint = null;
    this.feed.write(reads, () => this.updateFlow());
    this.updateFlow();
  }

  private frame(parts: Uint8Array[], bytes: number, flags: number, seq: number): Uint8Array {
    const frame = takeFrame(TERM_HEADER_BYTES + bytes);
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    writeTermHeader(view, this.spec.id, seq >>> 0);
    view.setUint8(1, flags);
    let at = TERM_HEADER_BYTES;
    for (const p of parts) { frame.set(p, at); at += p.byteLength; }
    return frame;
  }

  private updateFlow(): void {
    if (this.feed.backlog > MODEL_BACKLOG_HIGH_BYTES) this.modelBehind = true;
    else if (this.feed.backlog < MODEL_BACKLOG_LOW_BYTES) this.modelBehind = false;
    // A waiting repaint holds frames, not the shell, until a whole frame's worth is held.
    const pause = this.modelBehind || this.holderBehind || (this.repaintsWaiting > 0 && this.batchBytes >= OUTPUT_FRAME_MAX_BYTES);
    if (pause === this.paused || this.exited) return;
    this.paused = pause;
    if (pause) this.pty.pause(); else this.pty.resume();
  }
}
