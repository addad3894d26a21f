/** The viewer socket's target: every message kind, broken every way, from authenticated and token-less sockets. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeControl } from '../../src/shared/protocol.js';
import { runSocketTarget } from './socket-run.js';
import type { ForgeServer } from './server.js';
import { FuzzSocket } from './socket.js';
import type { TargetResult } from './result.js';
import { unauthenticatedInput, viewerInput, type ViewerScene } from './viewer-gen.js';

/** Share of inputs sent as the first message of a fresh token-less socket. */
const TOKENLESS_SHARE = 0.05;
/** Share of the fuzzer's own sockets that come without a token and send a good hello first. */
const HELLO_SHARE = 0.2;

export function fuzzViewer(o: { server: ForgeServer; prober: Client; seed: number; inputs: number; first?: number; scene: ViewerScene }): Promise<TargetResult> {
  let opened = 0;
  return runSocketTarget({
    name: 'viewer', server: o.server, prober: o.prober, seed: o.seed, inputs: o.inputs, first: o.first,
    open: async (judge) => {
      const hello = (opened++ % Math.round(1 / HELLO_SHARE)) === 1;
      const s = await FuzzSocket.open(o.server.port, hello ? undefined : o.server.viewerToken, judge);
      if (hello) s.ws.send(encodeControl({ t: 'hello', token: o.server.viewerToken }));
      return s;
    },
    next: (rng) => (rng.chance(TOKENLESS_SHARE)
      ? { input: unauthenticatedInput(rng, o.scene), tokenless: true }
      : { input: viewerInput(rng, o.scene) }),
  });
}
