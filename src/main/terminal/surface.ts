/**
 * The terminal surface: one terminal per seat, opened lazily, living as long as the seat (the
 * seat's last session ending, close, the shell exiting, idle close or the server stopping end it).
 * It keeps the rules (who attaches, who holds the keyboard, whether input is allowed) and tells
 * them to the relay, whose terminal fan-out takes the pty worker's frames straight to the sockets
 * with per-viewer flow control (workers/relay/term-fanout.ts); it pushes every state change.
 */
import { MessageChannel } from 'node:worker_threads';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SessionContext } from '../mcp/context.js';
import type { ViewerHub } from '../viewers.js';
import type { Surface } from '../surface.js';
import type { ServerContext } from '../surface.js';
import { ForgeError } from '../../shared/errors.js';
import { TERM_STATE, type TermRow, type TermServerMessage } from '../../shared/terminal.js';
import type { FromPty } from '../../workers/pty/protocol.js';
import { log } from '../logging.js';
import { seatAllowed } from '../../shared/grants.js';
import { PtyLink } from './pty-link.js';
import { TerminalRecord } from './record.js';
import { attachTerminalViewers } from './viewer-messages.js';
import { registerTerminalTools } from './tools.js';
import { shellEndWords } from './shell-end.js';

/** Size of a terminal opened by an agent before any viewer gave one, cells. */
export const DEFAULT_COLS = 120;
export const DEFAULT_ROWS = 32;
/** Shells one server runs at once: one per seat, bounded so no sender can start shells without end. */
export const TERMINALS_MAX = 64;
/** What a call hears when the server stops under it. */
const STOPPING = 'the server is stopping';
/** How often idle terminals are looked for, ms (more often when idle_minutes is shorter). */
const IDLE_SWEEP_MS = 30_000;
/** Shortest sweep period, ms. */
const IDLE_SWEEP_MIN_MS = 250;

export class TerminalSurface implements Surface {
  readonly name = 'terminal';
  readonly pty: PtyLink;
  /** The viewers' hub the server built this surface with. */
  get hub(): ViewerHub { return this.ctx.hub; }
  private bySeat = new Map<string, TerminalRecord>();
  private byId = new Map<number, TerminalRecord>();
  private nextId = 1;
  /** The working directory each seat's sessions named: where its next terminal starts. */
  private seatCwd = new Map<string, string>();
  /** The agent's environment each seat's sessions brought: its next terminal starts with it. */
  private seatEnv = new Map<string, Record<string, string>>();
  /** Open MCP sessions per seat: the seat is released when its last one closes. */
  private sessions = new Map<string, number>();
  /** A seat's terminal whose shell exited: its row says exited until the seat starts another or is released. */
  private exited = new Map<string, TerminalRecord>();
  /** Seats whose last session ended, released when their reconnect grace runs out without a new one. */
  private releasing = new Map<string, NodeJS.Timeout>();
  private sweep: NodeJS.Timeout;
  private stopping = false;
  /** Counted here; the bytes, drops and holder pauses are counted where they happen, in the relay. */
  private counters = { opened: 0, repaints: 0 };

  constructor(readonly ctx: ServerContext) {
    this.pty = new PtyLink((m) => this.onPty(m));
    const idleMs = ctx.config.terminal.idleMinutes * 60_000;
    this.sweep = setInterval(() => this.closeIdle(), Math.max(IDLE_SWEEP_MIN_MS, Math.min(IDLE_SWEEP_MS, idleMs / 4)));
    this.sweep.unref();
  }

  registerTools(server: McpServer, sctx: SessionContext): void {
    if (sctx.cwd) this.seatCwd.set(sctx.seat.key, sctx.cwd);
    if (sctx.env) this.seatEnv.set(sctx.seat.key, sctx.env);
    // A new session within the grace (an agent's /new or /resume, a restarted bridge) keeps the seat's terminal.
    clearTimeout(this.releasing.get(sctx.seat.key));
    this.releasing.delete(sctx.seat.key);
    this.sessions.set(sctx.seat.key, (this.sessions.get(sctx.seat.key) ?? 0) + 1);
    registerTerminalTools(this, server, sctx);
    this.pushRows();
  }

  /**
   * The seat's last session closed: its terminal, shell and scrollback wait [agent]
   * reconnect_grace_s for the seat's next session; with none by then the seat is released.
   */
  sessionClosed(sctx: SessionContext): void {
    const seat = sctx.seat.key;
    const n = (this.sessions.get(seat) ?? 1) - 1;
    if (n > 0) { this.sessions.set(seat, n); return; }
    this.sessions.delete(seat);
    const graceS = this.ctx.config.agent.reconnectGraceS;
    if (graceS <= 0 || this.stopping) { this.release(seat, ''); return; }
    clearTimeout(this.releasing.get(seat));
    const timer = setTimeout(() => this.release(seat, ` and no new one came within ${graceS} s`), graceS * 1000);
    timer.unref();
    this.releasing.set(seat, timer);
    this.pushRows();
  }

  /** The seat is released: its terminal ends and its viewers are told. */
  private release(seat: string, why: string): void {
    this.releasing.delete(seat);
    if (this.sessions.has(seat)) return;
    this.exited.delete(seat);
    const r = this.forSeat(seat);
    if (r) this.close(r, `terminal ${r.number} closed: its seat's session ended${why}`);
    else this.pushRows();
  }

  attachViewers(hub: ViewerHub): void {
    // The terminals' frames go from the pty worker to the relay on a port of their own.
    const { port1, port2 } = new MessageChannel();
    this.pty.post({ t: 'relay_port', port: port1 }, [port1]);
    hub.post({ t: 'term_source', port: port2 }, [port2]);
    hub.onTermLive((term, viewer) => this.viewerLive(term, viewer));
    attachTerminalViewers(this, hub);
  }

  gauges(): string {
    const lines = [`# TYPE forge_terminals gauge`, `forge_terminals ${this.byId.size}`];
    for (const [k, v] of Object.entries(this.counters)) lines.push(`# TYPE forge_terminal_${k}_total counter`, `forge_terminal_${k}_total ${v}`);
    return lines.join('\n');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweep);
    for (const t of this.releasing.values()) clearTimeout(t);
    this.releasing.clear();
    for (const r of this.byId.values()) r.handOff?.answer('withdrawn');
    await this.pty.stop();
    // A shell asked for just before the stop never comes up: its callers hear why.
    for (const r of this.byId.values()) if (r.phase === 'opening') r.rejectOpened(new ForgeError('terminal', STOPPING));
  }

  get(id: number): TerminalRecord {
    const r = this.byId.get(id);
    if (!r || r.ended) throw new ForgeError('terminal', `terminal ${id} is not open; raise it again from the strip`);
    return r;
  }

  all(): TerminalRecord[] { return [...this.byId.values()]; }

  forSeat(seat: string): TerminalRecord | undefined {
    const r = this.bySeat.get(seat);
    return r && !r.ended ? r : undefined;
  }

  /** Whether an agent's MCP session holds this seat now: a person may start its terminal. */
  seatHasSession(seat: string): boolean { return this.sessions.has(seat); }

  /** The seat's terminal, started if it has none. */
  async ensure(seat: string, cols = DEFAULT_COLS, rows = DEFAULT_ROWS): Promise<TerminalRecord> {
    let r = this.forSeat(seat);
    if (!r) {
      // A call landing while the server stops would start a shell nobody ends.
      if (this.stopping) throw new ForgeError('terminal', STOPPING);
      if ([...this.bySeat.values()].filter((t) => !t.ended).length >= TERMINALS_MAX) {
        throw new ForgeError('terminal', `${TERMINALS_MAX} terminals run already; close one before starting another`);
      }
      const id = this.nextId++;
      const shell = this.ctx.config.terminal.shell ?? process.env.SHELL ?? '/bin/bash';
      // The seat's own tree (a worker's worktree) when its session named one; else the project directory.
      const cwd = this.seatCwd.get(seat) ?? process.cwd();
      r = new TerminalRecord(id, id, seat, shell, cwd, cols, rows);
      this.exited.delete(seat);
      this.bySeat.set(seat, r);
      this.byId.set(id, r);
      this.counters.opened++;
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      // The agent's own variables (its PATH, its virtualenv) over the server's.
      Object.assign(env, this.seatEnv.get(seat), { TERM: 'xterm-256color', COLORTERM: 'truecolor' });
      this.pty.post({ t: 'open', spec: { id, shell, cwd, env, cols, rows } });
      log.info({ seat, terminal: id, shell, cwd }, 'terminal opening');
    }
    await r.opened;
    return r;
  }

  close(r: TerminalRecord, message: string): void {
    if (r.ended) return;
    r.phase = 'closed';
    this.pty.post({ t: 'close', id: r.id });
    this.ended(r, message);
  }

  /** Sends each viewer its own state line; `notice` goes to the listed viewers only. */
  pushState(r: TerminalRecord, notices: Map<number, string> = new Map()): void {
    for (const v of r.viewers) this.hub.send(v, r.stateMessage(v, notices.get(v)));
    for (const [v, n] of notices) if (!r.viewers.has(v)) this.hub.send(v, r.stateMessage(v, n));
    this.pushRows();
  }

  /** The strip's rows, to every viewer of the org (or to `to` alone: a client that just connected). */
  pushRows(to?: number): void {
    const rows: TermRow[] = [...this.byId.values(), ...this.exited.values()].map((r) => ({
      term: r.id, number: r.number, seat: r.seat, state: r.stripState(),
      handOff: r.handOff ? { reason: r.handOff.reason, hidden: r.handOff.hidden || r.facts.password } : null, viewers: r.viewers.size,
      held: r.holder !== null,
    }));
    for (const v of to !== undefined ? [to] : [...this.hub.viewers.keys()]) {
      const info = this.hub.viewers.get(v);
      // A hand-off link has no terminal rows; a person's token sees the seats it covers, of its org.
      if (!info || info.grant.kind === 'link') continue;
      const mine = (seat: string): boolean => seat.startsWith(`${info.org}/`) && seatAllowed(info.grant, seat);
      this.hub.send(v, { t: 'terminals', rows: rows.filter((r) => mine(r.seat)), seats: [...this.sessions.keys()].filter(mine) } satisfies TermServerMessage);
    }
  }

  /** Gives the keyboard to `viewer` (a person) or back to the agent (null), telling whoever lost it. */
  setHolder(r: TerminalRecord, holder: number | null, lostNotice: string): void {
    const previous = r.holder;
    if (previous === holder) return;
    r.holder = holder;
    this.hub.post({ t: 'term_rules', term: r.id, holder });
    const notices = new Map<number, string>();
    if (previous !== null) notices.set(previous, lostNotice);
    this.pushState(r, notices);
  }

  /** Attaches `viewer`: the relay asks the worker for its repaint, and it goes live when that is sent. */
  addViewer(r: TerminalRecord, viewer: number): void {
    r.viewers.add(viewer);
    this.hub.post({ t: 'term_watch', term: r.id, viewer, view: { number: r.number, seat: r.seat, shell: r.shell, cwd: r.facts.cwd } });
  }

  /** A fresh repaint for an attached `viewer`; it goes live again when the repaint is sent. */
  requestRepaint(r: TerminalRecord, viewer: number): void {
    if (r.viewers.has(viewer)) this.hub.post({ t: 'term_repaint', term: r.id, viewer });
  }

  /** Resizes the PTY and the model; every attached viewer is repainted at the new size. */
  resize(r: TerminalRecord, cols: number, rows: number): void {
    if (cols === r.facts.cols && rows === r.facts.rows) return;
    r.facts = { ...r.facts, cols, rows };
    // Through the relay, so the resize reaches the worker before the repaints at the new size.
    this.hub.post({ t: 'term_resize', term: r.id, cols, rows });
  }

  removeViewer(r: TerminalRecord, viewer: number): void {
    if (!r.viewers.delete(viewer)) return;
    this.hub.post({ t: 'term_watch', term: r.id, viewer, view: null });
    if (r.holder === viewer) this.setHolder(r, null, TERM_STATE.viewOnly);
    else this.pushRows();
  }

  /** The relay sent `viewer` its repaint of terminal `term`: its state line follows it. */
  private viewerLive(term: number, viewer: number): void {
    const r = this.byId.get(term);
    if (!r || !r.viewers.has(viewer)) return;
    this.counters.repaints++;
    this.hub.send(viewer, r.stateMessage(viewer));
  }

  private onPty(m: Exclude<FromPty, { t: 'answer' }>): void {
    if (m.t === 'stopped') return;
    if (m.t === 'fault') { log.error({ err: { message: m.message, stack: m.stack } }, 'the terminal thread caught an exception no handler caught (a defect); it goes on'); return; }
    const r = this.byId.get(m.id);
    if (!r) return;
    switch (m.t) {
      case 'opened':
        r.pid = m.pid;
        if (m.lineModes === 'stty') log.warn({ seat: r.seat, terminal: r.id }, 'terminal started without native/ptymodes: password detection spawns stty after each quiet spell');
        if (r.phase === 'opening') r.phase = 'live';
        r.resolveOpened();
        this.pushState(r);
        break;
      case 'failed':
        log.error({ seat: r.seat, terminal: r.id, err: { message: m.message, stack: m.stack } }, 'a terminal failed in its screen model (a defect); it was ended, the others go on');
        r.phase = 'closed';
        this.ended(r, `terminal ${r.number} was closed: ${m.message}; start it again from the strip, or the agent's next terminal call does`);
        break;
      case 'undrawn':
        r.undrawn = { ...r.undrawn, count: m.count, where: m.where, message: m.message };
        log.warn({ seat: r.seat, terminal: r.id, count: m.count, where: m.where, err: { message: m.message } }, 'the screen model could not draw a sequence of the output (a defect of xterm.js); it skipped it and drew on');
        break;
      case 'open_failed':
        r.rejectOpened(new ForgeError('terminal', m.message));
        r.phase = 'closed';
        this.ended(r, m.message);
        break;
      case 'facts': {
        const changed = m.facts.busy !== r.facts.busy || m.facts.password !== r.facts.password || m.facts.cwd !== r.facts.cwd;
        r.facts = m.facts;
        if (changed) this.pushState(r);
        break;
      }
      case 'exited':
        if (r.phase === 'closed') { this.forget(r); return; }
        r.phase = 'exited';
        this.ended(r, shellEndWords(m));
        this.exited.set(r.seat, r);
        this.forget(r);
        break;
    }
  }

  private ended(r: TerminalRecord, message: string): void {
    r.handOff?.answer('withdrawn');
    r.handOff = null;
    log.info({ seat: r.seat, terminal: r.id, message }, 'terminal ended');
    this.pushState(r);
    this.hub.send([...r.viewers], { t: 'term_closed', term: r.id, message } satisfies TermServerMessage);
    this.hub.post({ t: 'term_end', term: r.id });
    if (this.bySeat.get(r.seat) === r) this.bySeat.delete(r.seat);
  }

  private forget(r: TerminalRecord): void {
    this.byId.delete(r.id);
    this.pushRows();
  }

  private closeIdle(): void {
    const limit = this.ctx.config.terminal.idleMinutes * 60_000;
    const now = Date.now();
    for (const r of this.byId.values()) {
      if (r.ended || r.viewers.size || r.handOff || r.holder !== null || r.agentCalls || r.facts.busy) continue;
      if (now - r.lastUse >= limit) this.close(r, `terminal ${r.number} closed after ${this.ctx.config.terminal.idleMinutes} idle minutes`);
    }
  }
}
