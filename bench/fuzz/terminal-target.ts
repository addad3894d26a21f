/**
 * The terminal's input path: a viewer attaches to the seat's real terminal (its agent's session
 * made the seat), takes the keyboard, and types, resizes, acks and repaints with random and
 * mutated values. The socket acks every output frame as a real client does.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runSocketTarget } from './socket-run.js';
import type { ForgeServer } from './server.js';
import { FuzzSocket } from './socket.js';
import type { TargetResult } from './result.js';
import { terminalInput } from './terminal-gen.js';

/** The grid the fuzzer attaches with. */
const ATTACH_COLS = 100;
const ATTACH_ROWS = 30;
/** How long the terminal's view may take to arrive on attach, ms: a shell starting on a busy machine. */
const ATTACH_TIMEOUT_MS = 30_000;

export function fuzzTerminal(o: { server: ForgeServer; prober: Client; seed: number; inputs: number; first?: number; seat: string }): Promise<TargetResult> {
  let term = 0;
  const arm = (s: FuzzSocket): void => {
    s.send({ t: 'term_attach', seat: o.seat, cols: ATTACH_COLS, rows: ATTACH_ROWS });
    if (term) s.send({ t: 'term_control', term, take: true });
  };
  return runSocketTarget({
    name: 'terminal', server: o.server, prober: o.prober, seed: o.seed, inputs: o.inputs, first: o.first,
    open: async (judge) => {
      let viewed: (() => void) | undefined;
      const s = await FuzzSocket.open(o.server.port, o.server.viewerToken, {
        ...judge,
        message: (m) => {
          if (m.t === 'term_view' && typeof m.term === 'number') { term = m.term; viewed?.(); }
          // The shell ended (an input made cat exit, or the seat's terminal was closed): attach again, which starts it anew.
          if (m.t === 'term_closed') setTimeout(() => { if (s.open) arm(s); }, 100);
        },
      }, { ackTerminal: true });
      const attached = new Promise<void>((r) => { viewed = r; });
      arm(s);
      let t: NodeJS.Timeout | undefined;
      await Promise.race([attached, new Promise((r) => { t = setTimeout(r, ATTACH_TIMEOUT_MS); })]);
      clearTimeout(t);
      if (!term) judge.broken(`term_attach for ${o.seat} brought no term_view within ${ATTACH_TIMEOUT_MS} ms`);
      s.send({ t: 'term_control', term, take: true });
      return s;
    },
    next: (rng) => ({ input: terminalInput(rng, term || 1) }),
    // An input may have detached, released the keyboard or resized to nothing: each window starts attached and holding.
    window: arm,
  });
}
