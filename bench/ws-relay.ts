/**
 * The comparison relay: what one would write with the `ws` package — a WebSocketServer in a
 * worker thread, the same frame source and the same newest-frame rule (skip a client with unsent
 * bytes), one send per client per message. Reports its thread's CPU like forge's relay.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocketServer, type WebSocket } from 'ws';
import { RingFrameSource } from '../src/workers/relay/ring-source.js';
import { threadCpuMs } from '../src/workers/relay/thread-cpu.js';
import type { RelaySource } from '../src/main/browser/host/pipeline.js';

const src = workerData as RelaySource & { tab: number };
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
const clients = new Set<WebSocket>();
let viewerFrames = 0;
wss.on('connection', (ws) => { clients.add(ws); ws.on('close', () => clients.delete(ws)); ws.on('error', () => undefined); });
const source = new RingFrameSource(src.port, src.webpRing, src.webpRingSlots, src.webpSlotBytes);
source.onFrame((f, release) => {
  try {
    // ws may keep a message queued past this call: one copy per frame out of the ring, shared by all clients.
    const parts = f.parts.map((p) => Buffer.from(p));
    for (const ws of clients) {
      if (ws.bufferedAmount > 0) continue;
      for (const p of parts) ws.send(p, { binary: true });
      viewerFrames++;
    }
  } finally { release(); }
});
wss.on('listening', () => parentPort!.postMessage({ t: 'listening', port: (wss.address() as { port: number }).port }));
parentPort!.on('message', (m: { t: string }) => {
  if (m.t === 'stats') parentPort!.postMessage({ t: 'stats', viewerFrames, cpuMs: threadCpuMs() });
  if (m.t === 'stop') { for (const ws of clients) ws.terminate(); wss.close(); source.close(); parentPort!.close(); }
});
