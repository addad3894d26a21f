/**
 * The loop both socket targets run: input i is drawn from its own seeded generator, sent on a
 * live socket (a closed one is judged and replaced), paced by ping/pong every PACE_INPUTS inputs,
 * and the server probed every `probeEvery` inputs.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { inputRng, type Rng } from './prng.js';
import { Findings, Progress, type TargetResult } from './result.js';
import { MemoryWatch } from './memory.js';
import { probe, rssMb, settledRssMb, type ForgeServer } from './server.js';
import { FuzzSocket, PACE_INPUTS, PONG_TIMEOUT_MS, type Judged } from './socket.js';
import type { SocketInput } from './viewer-gen.js';

/** Inputs between two probes of the whole server (a fresh viewer's ping, an agent's tools/list). */
export const PROBE_EVERY_INPUTS = 1000;
/** How long the server has to close a token-less socket whose first message was not a good hello, ms (it closes at once). */
const UNAUTH_CLOSE_MS = 10_000;

export interface SocketTarget {
  name: string;
  server: ForgeServer;
  /** The prober's own MCP session. */
  prober: Client;
  seed: number;
  inputs: number;
  /** The first input's index: a replay of one input starts there. */
  first?: number;
  /** Opens (and readies) the socket inputs go to. */
  open: (judge: Judged) => Promise<FuzzSocket>;
  /** Input i: for the socket, or for a fresh token-less socket. */
  next: (rng: Rng, index: number) => { input: SocketInput; tokenless?: boolean };
  /** Run at each pace point on the live socket (a target re-arms what its inputs may have undone). */
  window?: (sock: FuzzSocket) => void;
}

export async function runSocketTarget(t: SocketTarget): Promise<TargetResult> {
  const found = new Findings(t.name, t.seed);
  const r = found.result;
  const progress = new Progress(t.name, t.inputs);
  const memory = new MemoryWatch(t.server);
  r.rss_mb_before = rssMb(t.server.pid);
  let current = { index: 0, from: 0, label: 'opening the socket' };
  const judge: Judged = {
    refusal: (words) => found.refused(words),
    broken: (what) => found.fault({ ...current, what }),
  };
  const dead = async (): Promise<boolean> => {
    const why = await probe(t.server, t.prober);
    if (!why) return false;
    r.crashes++;
    found.fault({ ...current, what: why });
    return true;
  };
  // An error the server logs and goes on past is said with the inputs it came among, so it can
  // be replayed with --from (the run's end names it again, from the whole log).
  const heard = (d: Buffer): void => {
    for (const line of d.toString().split('\n')) {
      if (/"level":(50|60)/.test(line)) process.stderr.write(`fuzz: the server logged an error among inputs ${Math.max(0, current.from - PACE_INPUTS)} to ${current.index} (replay with --from ${Math.max(0, current.from - PACE_INPUTS)}): ${line.slice(0, 300)}\n`);
    }
  };
  t.server.proc.stdout?.on('data', heard);
  t.server.proc.stderr?.on('data', heard);
  let sock: FuzzSocket | undefined;
  const judgeClose = (s: FuzzSocket): void => {
    if (!s.closed) return;
    if (FuzzSocket.wordedClose(s.closed)) { r.closes++; found.refused(`close ${s.closed.code}: ${s.closed.reason}`); } else judge.broken(`the socket was dropped without words (code ${s.closed.code})`);
  };
  try {
    const first = t.first ?? 0;
    for (let i = first; i < first + t.inputs; i++) {
      let drawn: ReturnType<typeof t.next>;
      try {
        drawn = t.next(inputRng(t.seed, i), i);
      } catch (e) {
        throw new Error(`the ${t.name} fuzzer could not draw input ${i} of seed ${t.seed} (replay it with --only ${i}): ${(e as Error).message}`);
      }
      const { input, tokenless } = drawn;
      if (tokenless) {
        current = { index: i, from: i, label: `token-less socket: ${input.label}` };
        const s = await FuzzSocket.open(t.server.port, undefined, judge);
        await s.input(input);
        if (!(await s.closedWithin(UNAUTH_CLOSE_MS))) judge.broken('a token-less socket whose first message was not a good hello was left open');
        judgeClose(s);
        s.end();
      } else {
        if (!sock?.open) {
          if (sock) { judgeClose(sock); sock.end(); }
          sock = await t.open(judge);
          current = { ...current, from: i };
        }
        current = { index: i, from: current.from, label: input.label };
        await sock.input(input);
      }
      r.inputs = i + 1 - first;
      if ((i + 1) % PACE_INPUTS === 0 && sock?.open) {
        if (!(await sock.roundTrip(PONG_TIMEOUT_MS))) {
          found.fault({ ...current, what: `no pong within ${PONG_TIMEOUT_MS} ms` });
          if (await dead()) break;
        }
        if (sock.open) t.window?.(sock);
        current = { ...current, from: i + 1 };
      }
      if ((i + 1) % PROBE_EVERY_INPUTS === 0 && (await dead())) break;
      progress.tick(r.inputs, r, rssMb(t.server.pid), memory.line);
    }
    if (sock?.open) await sock.roundTrip();
    if (sock && !sock.open) judgeClose(sock);
    if (!r.crashes) await dead();
  } finally {
    memory.stop();
    sock?.end();
    t.server.proc.stdout?.off('data', heard);
    t.server.proc.stderr?.off('data', heard);
  }
  r.rss_mb_after = await settledRssMb(t.server.pid);
  r.top_refusals = found.topRefusals();
  return r;
}
