/**
 * One seat terminal as the main thread knows it: who is attached, who holds the keyboard, the
 * parked hand-off, and the facts the screen model pushed (each viewer's flow is the relay's, see
 * workers/relay/term-fanout.ts). It decides the words each viewer's state line shows; it sends
 * nothing itself.
 */
import type { TermFacts } from '../../workers/pty/protocol.js';
import { TERM_STATE, type TermHandOffCard, type TermServerMessage } from '../../shared/terminal.js';

export interface HandOff extends TermHandOffCard {
  answer: (a: 'done' | 'not_now' | 'withdrawn') => void;
}

export class TerminalRecord {
  /** The viewers attached to it. */
  readonly viewers = new Set<number>();
  /** The person's viewer holding the keyboard; null: the agent has it. */
  holder: number | null = null;
  handOff: HandOff | null = null;
  facts: TermFacts;
  phase: 'opening' | 'live' | 'exited' | 'closed' = 'opening';
  pid = 0;
  lastUse = Date.now();
  /** Agent waits in flight: the state line says the agent is waiting. */
  agentWaits = 0;
  /** Agent calls in flight: a terminal is never idle-closed under a running call. */
  agentCalls = 0;
  /** Sequences the screen model could not draw (it skipped each), the last one's words, and how many the agent was told of. */
  undrawn = { count: 0, told: 0, where: '', message: '' };
  /** Resolves when the PTY is up (or rejects when it could not start). */
  opened: Promise<void>;
  resolveOpened!: () => void;
  rejectOpened!: (e: Error) => void;

  constructor(
    readonly id: number,
    readonly number: number,
    readonly seat: string,
    readonly shell: string,
    /** The directory the shell started in; where it is now is `facts.cwd`. */
    readonly cwd: string,
    cols: number,
    rows: number,
  ) {
    this.facts = { busy: false, password: false, marks: false, title: '', altScreen: false, cols, rows, cwd };
    this.opened = new Promise((resolve, reject) => { this.resolveOpened = resolve; this.rejectOpened = reject; });
    this.opened.catch(() => undefined);
  }

  get ended(): boolean { return this.phase === 'exited' || this.phase === 'closed'; }

  /** The state line for one viewer, from the most specific fact down. */
  stateFor(viewer: number): string {
    if (this.phase === 'closed') return TERM_STATE.closed;
    if (this.phase === 'exited') return TERM_STATE.exited;
    if (this.phase === 'opening') return TERM_STATE.opening;
    if (this.holder === viewer) return TERM_STATE.youHaveControl;
    if (this.handOff) return TERM_STATE.waitingForYou;
    if (this.holder !== null) return TERM_STATE.otherHasKeyboard;
    if (this.facts.busy) return TERM_STATE.running;
    if (this.facts.password) return TERM_STATE.password;
    if (this.agentWaits > 0) return TERM_STATE.agentWaiting;
    return TERM_STATE.viewOnly;
  }

  stateMessage(viewer: number, notice?: string): TermServerMessage {
    return {
      t: 'term_state', term: this.id, role: this.holder === viewer ? 'holder' : 'watcher', state: this.stateFor(viewer),
      ...(notice ? { notice } : {}),
      handOff: this.handOff ? { reason: this.handOff.reason, hidden: this.handOff.hidden || this.facts.password } : null,
      busy: this.facts.busy, password: this.facts.password, exited: this.phase === 'exited', closed: this.phase === 'closed', cwd: this.facts.cwd,
    };
  }

  /** The strip's words for the row. */
  stripState(): string {
    if (this.phase === 'exited') return 'exited';
    if (this.phase === 'closed') return 'off';
    if (this.handOff) return 'waiting for you';
    if (this.facts.password) return TERM_STATE.password;
    if (this.facts.busy) return 'a command is running';
    return 'idle';
  }
}
