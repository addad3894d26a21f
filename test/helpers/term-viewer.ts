/** A terminal viewer over a real socket: control messages decoded, kind-4 frames kept, output acked like the web client. */
import WebSocket from 'ws';
import { decodeControl, encodeControl, FRAME_KIND_TERMINAL } from '../../src/shared/protocol.js';
import { readTermHeader } from '../../src/shared/terminal.js';
import type { ServerInfo } from '../../src/main/state.js';

export interface TermFrame { id: number; seq: number; flags: number; bytes: Uint8Array }

/** A viewer socket that decodes control messages and kind-4 frames, and acks output like the web client. */
export class Viewer {
  readonly messages: Array<Record<string, unknown>> = [];
  readonly frames: TermFrame[] = [];
  ackBytes = true;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return;
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (bytes[0] === FRAME_KIND_TERMINAL) {
        const h = readTermHeader(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        const payload = bytes.subarray(h.hdrlen);
        this.frames.push({ id: h.id, seq: h.seq, flags: h.flags, bytes: payload });
        if (this.ackBytes) this.send({ t: 'term_ack', term: h.id, bytes: payload.byteLength });
      } else {
        const d = decodeControl(bytes);
        if (d.ok) this.messages.push(d.msg as Record<string, unknown>);
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(info: ServerInfo): Promise<Viewer> {
    const ws = new WebSocket(`ws://127.0.0.1:${info.port}/ws?token=${info.viewer_token}`);
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    return new Viewer(ws);
  }

  send(msg: Record<string, unknown>): void { this.ws.send(encodeControl(msg as never)); }

  /** The output text since the last keyframe, decoded. */
  text(): string {
    let start = 0;
    for (let i = 0; i < this.frames.length; i++) if (this.frames[i].flags & 1) start = i;
    return Buffer.concat(this.frames.slice(start).map((f) => Buffer.from(f.bytes))).toString('utf8');
  }

  async until<T>(test: () => T | undefined | false, timeoutMs = 10_000, what = 'a condition'): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = test();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 100); });
    }
  }

  message(t: string, pred: (m: Record<string, unknown>) => boolean = () => true): Record<string, unknown> | undefined {
    return [...this.messages].reverse().find((m) => m.t === t && pred(m));
  }

  close(): void { this.ws.close(); }
}
