/**
 * Terminal fan-out. The pty worker posts each terminal's kind-4 frames on a port of its own, and
 * they leave here for every live viewer's socket: the main thread never carries a terminal's
 * bytes. Each viewer's flow is kept here too, where its acks land: bytes sent and not yet
 * acknowledged, live (its repaint was sent) and stale (dropped for falling behind, repainted once
 * it catches up). The keyboard holder is never dropped; when it falls behind the PTY is held.
 *
 * The rules stay with the main thread, which says them with `term_watch` (who is attached),
 * `term_rules` (who holds the keyboard) and `term_end`; it asks for repaints and resizes here, so
 * they reach the pty worker on the one port its frames come back on, in order.
 */
import { TERM_HEADER_BYTES, encodeControl } from '../../shared/protocol.js';
import { TERM_ACK_EVERY_BYTES, type TermServerMessage } from '../../shared/terminal.js';
import type { PtyToRelay, RelayToPty } from '../pty/protocol.js';

/** Unacknowledged output that pauses the PTY for the keyboard holder, bytes: typing stays responsive. */
export const HOLDER_BACKLOG_HIGH_BYTES = 512 * 1024;
/** Holder backlog at which the PTY resumes, bytes. */
export const HOLDER_BACKLOG_LOW_BYTES = 128 * 1024;
/** Unacknowledged output past which a watcher is dropped to a fresh repaint, bytes: never an unbounded queue. */
export const WATCHER_BACKLOG_MAX_BYTES = 2 * 1024 * 1024;
/**
 * Shortest spell between two resizes applied to one terminal, ms. Each resize reflows the screen
 * model's scrollback (up to ~12 MB of rows made anew at 500 columns) and sends every viewer a
 * repaint; a window dragged at 60 Hz, or a client sending a storm of sizes, is applied at most this
 * often, the newest size winning (30 sizes sent back to back: 30 repaints to each viewer before, a
 * few now). A resize after a quiet spell applies at once. The holder's own terminal draws its new
 * size at once; the shell and the other viewers follow within this spell.
 */
export const TERM_RESIZE_MIN_INTERVAL_MS = 100;

/** What a viewer's `term_view` names besides the grid: said by the main thread when it attaches. */
export interface TermViewInfo { number: number; seat: string; shell: string; cwd: string }

/** The pty worker's terminal port, as this side uses it. */
export interface PtyPort {
  postMessage(m: RelayToPty, transfer?: ArrayBuffer[]): void;
  on(event: 'message', cb: (m: PtyToRelay) => void): void;
  close(): void;
}

/** One viewer's socket: binary messages out. */
export interface TermSink { send(bytes: Uint8Array): void }

interface TermViewer {
  viewer: number;
  view: TermViewInfo;
  /** Live after its repaint has been sent; output before that is in the repaint. */
  live: boolean;
  /** Dropped from live output because it fell behind; it gets a fresh repaint once caught up. */
  stale: boolean;
  /** Output bytes sent and not yet acknowledged (the shell's bytes, as the client counts them). */
  unacked: number;
}

/** A resize held back by TERM_RESIZE_MIN_INTERVAL_MS: the newest size asked, and the timer that applies it. */
interface HeldResize { cols: number; rows: number; timer: NodeJS.Timeout }

/**
 * `bytes`: what this terminal sent its viewers, for the operators' per-terminal figures.
 * `resizedAt`: when a resize was last applied (performance.now()).
 */
interface TermState { id: number; viewers: Map<number, TermViewer>; holder: number | null; holderBehind: boolean; bytes?: number; resizedAt: number; heldResize?: HeldResize }

export interface TermFanoutCounters { bytes_out: number; watchers_dropped: number; holder_pauses: number }

export class TermFanout {
  private port?: PtyPort;
  private readonly terms = new Map<number, TermState>();
  readonly counters: TermFanoutCounters = { bytes_out: 0, watchers_dropped: 0, holder_pauses: 0 };

  /**
   * `sinkOf`: the viewer's socket, if it is still open. `onLive`: a viewer's repaint was sent (the
   * main thread follows it with the viewer's state line, which needs the rules).
   */
  constructor(private readonly sinkOf: (viewer: number) => TermSink | undefined, private readonly onLive: (term: number, viewer: number) => void) {}

  /** The pty worker's terminal port. */
  source(port: PtyPort): void {
    this.port?.close();
    this.port = port;
    port.on('message', (m) => {
      if (m.t === 'output') this.output(m.id, m.frame);
      else this.repainted(m.id, m.viewer, m.cols, m.rows, m.frame);
    });
  }

  /** Viewer `viewer` is attached to terminal `term` (with `view`: it gets a repaint, then live output), or detached (null). */
  watch(term: number, viewer: number, view: TermViewInfo | null): void {
    if (view === null) {
      const t = this.terms.get(term);
      if (!t?.viewers.delete(viewer)) return;
      this.post({ t: 'viewers', id: term, count: t.viewers.size });
      if (t.holder === viewer) this.rules(term, null);
      return;
    }
    const t = this.term(term);
    const v = t.viewers.get(viewer);
    if (v) v.view = view;
    else t.viewers.set(viewer, { viewer, view, live: false, stale: false, unacked: 0 });
    this.repaint(term, viewer);
  }

  /** Who holds the keyboard: a person's viewer, or null (the agent). */
  rules(term: number, holder: number | null): void {
    const t = this.terms.get(term);
    if (!t) return;
    t.holder = holder;
    this.setHolderBehind(t, holder !== null && (t.viewers.get(holder)?.unacked ?? 0) > HOLDER_BACKLOG_HIGH_BYTES);
  }

  /** Asks the pty worker for a repaint for `viewer`; it goes live when the repaint is sent. */
  repaint(term: number, viewer: number): void {
    const t = this.terms.get(term);
    const v = t?.viewers.get(viewer);
    if (!t || !v) return;
    v.live = false;
    v.stale = false;
    this.post({ t: 'viewers', id: term, count: t.viewers.size });
    this.post({ t: 'repaint', id: term, viewer });
  }

  /**
   * Resizes the PTY and the model; every viewer of it is repainted at the new size. Within
   * TERM_RESIZE_MIN_INTERVAL_MS of the last resize it is held, and the newest size held is applied
   * when the spell ends.
   */
  resize(term: number, cols: number, rows: number): void {
    const t = this.term(term);
    if (t.heldResize) { t.heldResize.cols = cols; t.heldResize.rows = rows; return; }
    const wait = t.resizedAt + TERM_RESIZE_MIN_INTERVAL_MS - performance.now();
    if (wait <= 0) { this.applyResize(t, cols, rows); return; }
    const timer = setTimeout(() => {
      const held = t.heldResize!;
      t.heldResize = undefined;
      if (this.terms.get(term) === t) this.applyResize(t, held.cols, held.rows);
    }, wait);
    t.heldResize = { cols, rows, timer };
  }

  /** The terminal ended: nothing of it is kept. */
  end(term: number): void {
    clearTimeout(this.terms.get(term)?.heldResize?.timer);
    this.terms.delete(term);
  }

  /** An ack from an attached viewer, handled here: true. Anything else is the main thread's to answer (false). */
  ack(term: number, viewer: number, bytes: unknown): boolean {
    const t = this.terms.get(term);
    const v = t?.viewers.get(viewer);
    if (!t || !v || typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0 || bytes > 2 ** 31) return false;
    v.unacked = Math.max(0, v.unacked - bytes);
    if (t.holder === viewer && t.holderBehind && v.unacked < HOLDER_BACKLOG_LOW_BYTES) this.setHolderBehind(t, false);
    if (v.stale && v.unacked < TERM_ACK_EVERY_BYTES) this.repaint(term, viewer);
    return true;
  }

  /** The viewer's socket closed: it is dropped from every terminal, and a shell it held back runs on. */
  closed(viewer: number): void {
    for (const t of this.terms.values()) if (t.viewers.has(viewer)) this.watch(t.id, viewer, null);
  }

  /** Each terminal with viewers: how many, and the bytes it sent them. */
  watchedTerminals(): Array<{ term: number; number: number; seat: string; viewers: number; bytes: number }> {
    return [...this.terms.values()].filter((t) => t.viewers.size > 0).map((t) => {
      const view = t.viewers.values().next().value!.view;
      return { term: t.id, number: view.number, seat: view.seat, viewers: t.viewers.size, bytes: t.bytes ?? 0 };
    });
  }

  close(): void {
    this.port?.close();
    this.port = undefined;
    for (const t of this.terms.values()) clearTimeout(t.heldResize?.timer);
    this.terms.clear();
  }

  private output(term: number, frame: Uint8Array): void {
    const t = this.terms.get(term);
    if (!t) { this.spent(frame); return; }
    // Counted as the client counts its acks: the shell's bytes, not the header.
    const bytes = frame.byteLength - TERM_HEADER_BYTES;
    for (const v of t.viewers.values()) {
      if (!v.live || v.stale) continue;
      if (t.holder !== v.viewer && v.unacked > WATCHER_BACKLOG_MAX_BYTES) {
        v.stale = true;
        this.counters.watchers_dropped++;
        continue;
      }
      const sink = this.sinkOf(v.viewer);
      if (!sink) continue;
      v.unacked += bytes;
      sink.send(frame);
      this.counters.bytes_out += frame.byteLength;
      t.bytes = (t.bytes ?? 0) + frame.byteLength;
    }
    if (t.holder !== null && (t.viewers.get(t.holder)?.unacked ?? 0) > HOLDER_BACKLOG_HIGH_BYTES) this.setHolderBehind(t, true);
    this.spent(frame);
  }

  /** Every socket copied the frame as it was sent: its buffer goes back to be framed in again. */
  private spent(frame: Uint8Array): void {
    const buf = frame.buffer as ArrayBuffer;
    this.port?.postMessage({ t: 'spent', buf }, [buf]);
  }

  private repainted(term: number, viewer: number, cols: number, rows: number, frame: Uint8Array): void {
    const v = this.terms.get(term)?.viewers.get(viewer);
    const sink = this.sinkOf(viewer);
    if (!v || !sink) { this.spent(frame); return; }
    sink.send(encodeControl({ t: 'term_view', term, number: v.view.number, seat: v.view.seat, shell: v.view.shell, cwd: v.view.cwd, cols, rows } satisfies TermServerMessage));
    v.unacked += frame.byteLength - TERM_HEADER_BYTES;
    sink.send(frame);
    this.spent(frame);
    v.live = true;
    this.onLive(term, viewer);
  }

  private applyResize(t: TermState, cols: number, rows: number): void {
    t.resizedAt = performance.now();
    this.post({ t: 'resize', id: t.id, cols, rows });
    for (const v of t.viewers.keys()) this.repaint(t.id, v);
  }

  private setHolderBehind(t: TermState, behind: boolean): void {
    if (t.holderBehind === behind) return;
    t.holderBehind = behind;
    if (behind) this.counters.holder_pauses++;
    this.post({ t: 'flow', id: t.id, holderBehind: behind });
  }

  private term(term: number): TermState {
    let t = this.terms.get(term);
    if (!t) { t = { id: term, viewers: new Map(), holder: null, holderBehind: false, resizedAt: -Infinity }; this.terms.set(term, t); }
    return t;
  }

  private post(m: RelayToPty): void { this.port?.postMessage(m); }
}
