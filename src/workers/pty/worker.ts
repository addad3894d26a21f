/**
 * The pty worker: every seat terminal's PTY and screen model live on this thread, so parsing a
 * flood never stalls the main thread's MCP calls or viewer routing.
 */
import { parentPort } from 'node:worker_threads';
import { isForgeError } from '../../shared/errors.js';
import type { FromPty, ToPty } from './protocol.js';
import { SeatTerminal } from './terminal.js';
import { ShellStartup } from './shell.js';
import { encodeKey } from './keys.js';
import { ptyModesNative } from './echo.js';
import { run, wait } from './commands.js';

const port = parentPort!;
const post = (m: FromPty, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer ?? []);
const terminals = new Map<number, SeatTerminal>();
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

port.on('message', (m: ToPty) => {
  if (m.t === 'stop') {
    for (const t of terminals.values()) t.kill();
    startup.dispose();
    post({ t: 'stopped' });
    return;
  }
  if (m.t === 'open') {
    try {
      const term = new SeatTerminal(m.spec, startup.launch(m.spec.shell, m.spec.env), (msg, transfer) => {
        if (msg.t === 'exited') terminals.delete(m.spec.id);
        post(msg, transfer);
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
    case 'input': term?.write(m.data); break;
    case 'resize': term?.resize(m.cols, m.rows); break;
    case 'repaint': term?.repaint(m.viewer); break;
    case 'viewers': term?.setViewers(m.count); break;
    case 'flow': term?.setHolderBehind(m.holderBehind); break;
    case 'close': term?.kill(); break;
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
