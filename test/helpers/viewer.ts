/** A viewer over a real WebSocket: control messages decoded, binary frames kept with their headers. */
import WebSocket from 'ws';
import { decodeControl, encodeControl, readFrameHeader, type FrameHeader, type ClientMessage } from '../../src/shared/protocol.js';

export interface TestViewer {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  frames: Array<FrameHeader & { bytes: number }>;
  send: (m: ClientMessage) => void;
  next: (t: string, pred?: (m: Record<string, unknown>) => boolean, ms?: number) => Promise<Record<string, unknown>>;
  waitFrames: (n: number, ms?: number) => Promise<void>;
  close: () => Promise<void>;
}

export async function openViewer(port: number, token: string): Promise<TestViewer> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  ws.binaryType = 'nodebuffer';
  const messages: Array<Record<string, unknown>> = [];
  const frames: TestViewer['frames'] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data: Buffer, isBinary) => {
    if (!isBinary) return;
    const u8 = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (u8[0] === 1) {
      frames.push({ ...readFrameHeader(new DataView(u8.buffer, u8.byteOffset, u8.byteLength)), bytes: u8.byteLength });
    } else {
      const d = decodeControl(u8);
      if (d.ok) messages.push(d.msg as Record<string, unknown>);
    }
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
  const wait = (): Promise<void> => new Promise((r) => waiters.push(r));
  let cursor = 0;
  return {
    ws, messages, frames,
    send: (m) => ws.send(encodeControl(m)),
    next: async (t, pred = () => true, ms = 15_000) => {
      const end = Date.now() + ms;
      for (;;) {
        for (let i = cursor; i < messages.length; i++) {
          if (messages[i].t === t && pred(messages[i])) { cursor = i + 1; return messages[i]; }
        }
        if (Date.now() > end) throw new Error(`no "${t}" message within ${ms} ms; got ${JSON.stringify(messages.slice(cursor).map((m) => m.t))}`);
        await Promise.race([wait(), new Promise((r) => setTimeout(r, 100))]);
      }
    },
    waitFrames: async (n, ms = 15_000) => {
      const end = Date.now() + ms;
      while (frames.length < n) {
        if (Date.now() > end) throw new Error(`only ${frames.length} of ${n} frames within ${ms} ms`);
        await Promise.race([wait(), new Promise((r) => setTimeout(r, 100))]);
      }
    },
    close: () => new Promise((r) => { if (ws.readyState === ws.CLOSED) { r(); return; } ws.once('close', () => r()); ws.close(); }),
  };
}
