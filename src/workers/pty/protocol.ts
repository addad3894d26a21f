/**
 * The pty worker's doors: what the main thread asks of it and what it reports back, and the
 * terminal port to the relay worker, which carries the viewers' side of every terminal.
 *
 * The worker owns every PTY and its screen model. Output leaves it on the terminal port as
 * ready-made kind-4 frames (header + the shell's bytes), in the order the model parsed them; a
 * repaint is answered on that same port in that same order, so a viewer that goes live at a
 * repaint sees no gap and no duplicate. The main thread never carries a terminal's bytes.
 */
import type { MessagePort } from 'node:worker_threads';

export interface OpenSpec {
  id: number;
  /** Program to run: `[terminal] shell`, else $SHELL, else /bin/bash. */
  shell: string;
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

/** What the screen model knows about the shell, pushed when it changes. */
export interface TermFacts {
  /** A command is running: OSC 133 C seen without its D, or a `run` in flight. */
  busy: boolean;
  /** The PTY has ECHO off in canonical mode: a program is reading a secret. */
  password: boolean;
  /** The shell has emitted OSC 133 marks, so waits are exact. */
  marks: boolean;
  title: string;
  altScreen: boolean;
  cols: number;
  rows: number;
  /** The shell's working directory now (read from its process at each change of facts: a `cd` shows at the next prompt). */
  cwd: string;
}

export interface ScreenRead {
  /** The visible screen, one line per row, trailing blanks trimmed. */
  text: string;
  cursor: { x: number; y: number; visible: boolean };
  facts: TermFacts;
}

/** How a shell ended: its exit code, and the signal that ended it, if one did. */
export interface ShellExit { code: number; signal: number | null }

export interface RunResult {
  output: string;
  exit_code: number | null;
  source: 'osc133' | 'heuristic';
  /** The command had not finished by the deadline; `output` is what the screen shows so far. */
  timed_out?: boolean;
  /** The output was longer than the terminal keeps: `output` is its end. */
  cut?: boolean;
  /** The shell itself ended while the command ran (`exit`, a kill): the terminal is gone with it. */
  shell_exited?: ShellExit;
}

export interface WaitResult {
  done: boolean;
  source: 'osc133' | 'heuristic' | 'text';
  exit_code?: number | null;
  timed_out?: boolean;
  /** Until "done" through the marks: the output of the command that ended, as terminal__run gives it. */
  output?: string;
  /** That output was longer than the terminal keeps: `output` is its end. */
  cut?: boolean;
  /** The shell itself ended during the wait: the terminal is gone with it. */
  shell_exited?: ShellExit;
}

/** main → pty */
export type ToPty =
  | { t: 'open'; spec: OpenSpec }
  | { t: 'input'; id: number; data: string }
  /** Named keys (`Enter`, `Ctrl-C`, `Up`…), encoded against the terminal's current modes. */
  | { t: 'keys'; id: number; keys: string[]; req: number }
  /** The relay's end is the other port of the pair: output goes there, viewer asks come from there. */
  | { t: 'relay_port'; port: MessagePort }
  | { t: 'read'; id: number; req: number }
  | { t: 'wait'; id: number; req: number; until: 'done' | 'text'; text?: string; timeoutMs: number }
  | { t: 'run'; id: number; req: number; command: string; timeoutMs: number }
  | { t: 'close'; id: number }
  | { t: 'stop' };

/** pty → main */
export type FromPty =
  /** `lineModes`: how termios is read for password detection (in the process, or by spawning stty where the addon is missing). */
  | { t: 'opened'; id: number; pid: number; lineModes: 'in-process' | 'stty' }
  | { t: 'open_failed'; id: number; message: string }
  | { t: 'facts'; id: number; facts: TermFacts }
  | { t: 'answer'; req: number; ok: true; value: unknown }
  | { t: 'answer'; req: number; ok: false; message: string }
  | { t: 'exited'; id: number; code: number; signal: number | null }
  /** Terminal `id` failed in the screen model (a defect): its shell is killed, the other terminals go on. */
  | { t: 'failed'; id: number; message: string; stack?: string }
  /** An exception no handler caught on the pty thread, said to main to log; the thread goes on. */
  | { t: 'fault'; message: string; stack?: string }
  /** The screen model could not draw `count` sequences so far (it skipped each and drew on); the last one's place and xterm.js's words. */
  | { t: 'undrawn'; id: number; count: number; where: string; message: string }
  /** Every shell ended; `left`: those whose exit was not seen by the deadline. */
  | { t: 'stopped'; left: number };

/**
 * relay → pty, on the terminal port. The relay sends every ask that must stay in order with the
 * output (a resize before the repaints at the new size), so one port orders them all.
 */
export type RelayToPty =
  | { t: 'resize'; id: number; cols: number; rows: number }
  /** Serialize the screen for `viewer` once the model has parsed everything before this message. */
  | { t: 'repaint'; id: number; viewer: number }
  /** Whether anyone is subscribed: output is only framed and posted while someone is. */
  | { t: 'viewers'; id: number; count: number }
  /** The keyboard holder's socket is behind: hold the PTY until it catches up. */
  | { t: 'flow'; id: number; holderBehind: boolean }
  /** An output frame's buffer, sent to every viewer: the pty worker frames the next output in it. */
  | { t: 'spent'; buf: ArrayBuffer };

/** pty → relay, on the terminal port. */
export type PtyToRelay =
  /** A kind-4 frame (header included), for every live viewer of the terminal. */
  | { t: 'output'; id: number; frame: Uint8Array }
  /** A kind-4 keyframe holding the repaint for one viewer, then that viewer is live. */
  | { t: 'repaint'; id: number; viewer: number; cols: number; rows: number; frame: Uint8Array };
