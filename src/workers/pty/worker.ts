/**
 * The pty worker: every seat terminal's PTY and screen model live on this thread, so parsing a
 * flood never stalls the main thread's MCP calls or viewer routing.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { reportHeap, type HeapSlot } from '../thread-heaps.js';
import { isForgeError } from '../../shared/errors.js';
import type { FromPty, PtyToRelay, RelayToPty, ToPty } from './protocol.js';
import { SeatTerminal } from './terminal.js';
import { giveBack } from './frame-pool.js';
import { ShellStartup } from './shell.js';
import { encodeKey } from './keys.js';
import { ptyModesNative } from './echo.js';
import { run, wait } from './commands.js';
import { nameThread } from '../thread-name.js';

nameThread('forge-pty');

const port = parentPort!;
reportHeap((workerData as { heap?: HeapSlot } | null)?.heap);
const post = (m: FromPty, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer ?? []);
const terminals = new Map<number, SeatTerminal>();
/** The relay's terminal port: every frame for viewers goes there, straight to the sockets. */
let relay: MessagePort | undefined;
/** Output and repaints to the relay (none is framed before it is there: no viewer is counted); the rest to the main thread. */
const postAny = (m: FromPty | PtyToRelay, transfer?: ArrayBuffer[]): void => {
  if (m.t === 'output' || m.t === 'repaint') relay?.postMessage(m, transfer ?? []);
  else post(m, transfer);
};

/**
 * Runs one terminal's step. A step that throws is a defect in that terminal's screen model (its
 * reflow on a resize once failed after a long random history): that terminal is ended, in words,
 * and every other terminal on this thread goes on. Left uncaught it ended this thread, and with it
 * every seat's terminal and, through node-pty's own thread, the server.
 */
function guarded(id: number, what: string, step: () => void): void {
  try {
    step();
  } catch (e) {
    const err = e as Error;
    post({ t: 'failed', id, message: `its screen model failed on ${what} (${err?.message ?? String(e)})`, ...(err?.stack ? { stack: err.stack } : {}) });
    terminals.get(id)?.kill('SIGKILL');
  }
}

// What no handler caught is said to main, which logs it, and the thread goes on: one terminal's
// fault must not end every terminal.
process.on('uncaughtException', (e: Error) => {
  try { post({ t: 'fault', message: String(e?.message ?? e), ...(e?.stack ? { stack: e.stack } : {}) }); } catch { /* main is gone */ }
});

function fromRelay(m: RelayToPty): void {
  if (m.t === 'spent') { giveBack(m.buf); return; }
  const term = terminals.get(m.id);
  if (!term) return;
  switch (m.t) {
    case 'resize': guarded(m.id, `a resize to ${m.cols}x${m.rows}`, () => term.resize(m.cols, m.rows)); break;
    case 'repaint': guarded(m.id, 'a repaint', () => term.repaint(m.viewer)); break;
    case 'viewers': term.setViewers(m.count); break;
    case 'flow': term.setHolderBehind(m.holderBehind); break;
  }
}
const startup = new ShellStartup();

function answer(req: number, work: () => unknown): void {
  Promise.resolve()
    .then(work)
    .then((value) => post({ t: 'answer', req, ok: true, value }))
    .catch((e: unknown) => post({ t: 'answer', req, ok: false, message: isForgeError(e) ? e.message : `the terminal could not do that: ${(e as Error).message}` }));
}

function gone(id: number): never {
  throw new Error(`terminal ${id} is not open`);
}

/** How long a hung-up shell has to exit before it is killed, ms: bash and zsh pass the hang-up to their jobs and go well within it. */
export const SHELL_HANGUP_GRACE_MS = 1000;
/** How long a killed shell's exit may take to be seen, ms: node-pty reports it once the PTY's last read is done (it waits up to 200 ms for that). */
export const SHELL_KILL_GRACE_MS = 1000;

/** Hangs up a closed terminal's shell, and kills it if it has not exited within the grace: a closed terminal's shell never runs on. */
function hangUp(term: SeatTerminal): void {
  term.kill('SIGHUP');
  const late = setTimeout(() => term.kill('SIGKILL'), SHELL_HANGUP_GRACE_MS);
  void term.gone.then(() => clearTimeout(late));
}

function allGone(ms: number): Promise<void> {
  const gone = Promise.all([...terminals.values()].map((t) => t.gone)).then(() => undefined);
  return Promise.race([gone, new Promise<void>((r) => setTimeout(r, ms))]);
}

/**
 * Ends every shell and waits until node-pty has seen each one exit: a PTY's exit is reported from
 * node-pty's own thread, and a thread torn down before that report lands is a fatal error of the
 * whole process. Then says so, and the main thread ends this thread.
 */
async function stopAll(): Promise<void> {
  for (const t of terminals.values()) t.kill('SIGHUP');
  await allGone(SHELL_HANGUP_GRACE_MS);
  for (const t of terminals.values()) t.kill('SIGKILL');
  await allGone(SHELL_KILL_GRACE_MS);
  startup.dispose();
  post({ t: 'stopped', left: terminals.size });
}

port.on('message', (m: ToPty) => {
  if (m.t === 'stop') {
    void stopAll();
    return;
  }
  if (m.t === 'relay_port') {
    relay?.close();
    relay = m.port;
    relay.on('message', fromRelay);
    return;
  }
  if (m.t === 'open') {
    try {
      const term = new SeatTerminal(m.spec, startup.launch(m.spec.shell, m.spec.env), (msg, transfer) => {
        if (msg.t === 'exited') terminals.delete(m.spec.id);
        postAny(msg, transfer);
      });
      terminals.set(m.spec.id, term);
      post({ t: 'opened', id: m.spec.id, pid: term.pid, lineModes: ptyModesNative ? 'in-process' : 'stty' });
      term.pushFacts();
    } catch (e) {
      post({ t: 'open_failed', id: m.spec.id, message: `${m.spec.shell} could not be started: ${(e as Error).message}` });
    }
    return;
  }
  const term = terminals.get(m.id);
  switch (m.t) {
    case 'input': if (term) guarded(m.id, 'typed input', () => term.write(m.data)); break;
    case 'close': if (term) hangUp(term); break;
    case 'keys':
      answer(m.req, () => {
        if (!term) gone(m.id);
        const bytes = m.keys.map((k) => encodeKey(k, term.appCursor)).join('');
        term.write(bytes);
        return bytes.length;
      });
      break;
    case 'read':
      answer(m.req, async () => {
        if (!term) gone(m.id);
        await term.settled();
        await term.checkEcho();
        return { ...term.screen(), facts: term.facts() };
      });
      break;
    case 'run':
      answer(m.req, () => (term ? run(term, m.command, m.timeoutMs) : gone(m.id)));
      break;
    case 'wait':
      answer(m.req, () => (term ? wait(term, m.until, m.text, m.timeoutMs) : gone(m.id)));
      break;
  }
});
