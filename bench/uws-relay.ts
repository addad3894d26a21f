/**
 * The floor: uWS with nothing of forge's on top — an App in a worker thread, the same frame
 * source and the same newest-frame rule (a client whose last send left bytes unsent is skipped
 * until it drains), one send per client per message, no viewer state. What it spends per
 * viewer-frame is the socket's own cost, which no relay on uWS can go under. Reports its
 * thread's CPU like forge's relay.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { App, us_listen_socket_close, us_socket_local_port, type WebSocket, type us_listen_socket } from '../src/workers/relay/uws.js';
import { RingFrameSource } from '../src/workers/relay/ring-source.js';
import { threadCpuMs } from '../src/workers/relay/thread-cpu.js';
import type { RelaySource } from '../src/main/browser/host/pipeline.js';

interface Client { backlog: boolean }

const src = workerData as RelaySource & { tab: number };
const clients = new Set<WebSocket<Client>>();
let viewerFrames = 0;
let listen: us_listen_socket | null = null;
const app = App().ws<Client>('/*', {
  maxPayloadLength: 64 * 1024,
  maxBackpressure: 8 * 1024 * 1024,
  idleTimeout: 60,
  upgrade: (res, req, context) => {
    res.upgrade<Client>({ backlog: false }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  },
  open: (ws) => { clients.add(ws); },
  drain: (ws) => { if (ws.getBufferedAmount() === 0) ws.getUserData().backlog = false; },
  close: (ws) => { clients.delete(ws); },
});
const source = new RingFrameSource(src.port, src.webpRing, src.webpRingSlots, src.webpSlotBytes);
source.onFrame((f, release) => {
  try {
    for (const ws of clients) {
      const c = ws.getUserData();
      if (c.backlog) continue;
      if (f.parts.length === 1) c.backlog = ws.send(f.parts[0]!, true) !== 1;
      else { ws.cork(() => { for (const p of f.parts) ws.send(p, true); }); c.backlog = ws.getBufferedAmount() > 0; }
      viewerFrames++;
    }
  } finally { release(); }
});
app.listen('127.0.0.1', 0, (s) => {
  listen = s;
  parentPort!.postMessage({ t: 'listening', port: us_socket_local_port(s as never) });
});
parentPort!.on('message', (m: { t: string }) => {
  if (m.t === 'stats') parentPort!.postMessage({ t: 'stats', viewerFrames, cpuMs: threadCpuMs() });
  if (m.t === 'stop') {
    for (const ws of clients) ws.close();
    if (listen) us_listen_socket_close(listen);
    source.close();
    parentPort!.close();
  }
});
