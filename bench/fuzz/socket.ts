/**
 * A fuzzing viewer: a real WebSocket to /ws that sends inputs, paces itself with ping/pong, and
 * judges every answer against the socket's rules — an error is a sentence, a reply is bounded,
 * a close has a code and words, and the server never sends text.
 */
import WebSocket from 'ws';
import { decodeControl, encodeControl, FRAME_KIND_BROWSER, FRAME_KIND_TERMINAL } from '../../src/shared/protocol.js';
import { readTermHeader } from '../../src/shared/terminal.js';
import type { SocketInput } from './viewer-gen.js';

/** Bytes of one error reply: a sentence of at most 400 characters with its kind and id, never an echo of the input. */
export const ERROR_REPLY_MAX_BYTES = 2 * 1024;
/** Bytes of any other control reply to the fuzzer: its pushes (a tab list, a view, a terminal row) name a handful of things. */
export const CONTROL_REPLY_MAX_BYTES = 16 * 1024;
/** Inputs sent between two ping/pong round trips: a failure's window, and what keeps a slow handler from piling up. */
export const PACE_INPUTS = 100;
/**
 * Messages a second the fuzzer sends at most: under half the server's own sustained bound
 * (1000 a second), so a close for flooding is never what a run measures.
 */
export const SEND_MAX_PER_SECOND = 400;
/** How long a pong may take, ms: past it the server is named hung. A 15 MiB input is decoded well inside it. */
export const PONG_TIMEOUT_MS = 30_000;

export interface Judged {
  /** A worded refusal arrived (an error message), with its words. */
  refusal: (words: string) => void;
  /** A rule was broken; `what` says how. */
  broken: (what: string) => void;
  /** Any control message that is not an error, for the target's own bookkeeping (term_view, term_closed). */
  message?: (m: Record<string, unknown>) => void;
}

export class FuzzSocket {
  readonly ws: WebSocket;
  closed?: { code: number; reason: string };
  private pongs = new Map<number, () => void>();
  private closeWaiters: Array<() => void> = [];
  private nextPing = 1;
  private windowStart = Date.now();
  private sentInWindow = 0;

  private constructor(ws: WebSocket, private readonly judge: Judged, private readonly ackTerminal: boolean) {
    this.ws = ws;
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data: Buffer, isBinary) => this.onMessage(data, isBinary));
    ws.on('error', () => undefined);
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.closeWaiters.splice(0)) w();
      for (const p of this.pongs.values()) p();
      this.pongs.clear();
    });
  }

  /** Opens a socket; `token` undefined opens one with no token, which must send hello first. */
  static async open(port: number, token: string | undefined, judge: Judged, opts: { ackTerminal?: boolean } = {}): Promise<FuzzSocket> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws${token !== undefined ? `?token=${token}` : ''}`);
    const s = new FuzzSocket(ws, judge, opts.ackTerminal ?? false);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`the socket was refused with HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
    return s;
  }

  get open(): boolean { return this.closed === undefined && this.ws.readyState === WebSocket.OPEN; }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (!isBinary) { this.judge.broken(`the server sent a text frame (${data.length} bytes)`); return; }
    const kind = data[0];
    if (kind === FRAME_KIND_BROWSER) return;
    if (kind === FRAME_KIND_TERMINAL) {
      if (this.ackTerminal && data.length >= 12) {
        const h = readTermHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
        this.send({ t: 'term_ack', term: h.id, bytes: data.length - h.hdrlen });
      }
      return;
    }
    const d = decodeControl(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (!d.ok) { this.judge.broken(`the server sent a control message that does not decode: ${d.reason}`); return; }
    const m = d.msg as Record<string, unknown>;
    if (m.t === 'pong' && typeof m.id === 'number' && this.pongs.has(m.id)) {
      const done = this.pongs.get(m.id)!;
      this.pongs.delete(m.id);
      done();
      return;
    }
    if (m.t === 'error') {
      if (typeof m.message !== 'string' || m.message.trim() === '') this.judge.broken(`an error reply with no sentence: ${JSON.stringify(m).slice(0, 200)}`);
      else if (data.length > ERROR_REPLY_MAX_BYTES) this.judge.broken(`an error reply of ${data.length} bytes (bound ${ERROR_REPLY_MAX_BYTES}): ${m.message.slice(0, 120)}`);
      else this.judge.refusal(m.message);
      return;
    }
    if (data.length > CONTROL_REPLY_MAX_BYTES) this.judge.broken(`a "${String(m.t)}" reply of ${data.length} bytes (bound ${CONTROL_REPLY_MAX_BYTES})`);
    this.judge.message?.(m);
  }

  send(m: Record<string, unknown>): void {
    if (this.open) this.ws.send(encodeControl(m as never));
  }

  /** Sends one input, no faster than SEND_MAX_PER_SECOND. */
  async input(input: SocketInput): Promise<void> {
    if (!this.open) return;
    if (input.text !== undefined) this.ws.send(input.text);
    else this.ws.send(input.bytes!);
    if (++this.sentInWindow >= SEND_MAX_PER_SECOND / 10) {
      const wait = 100 - (Date.now() - this.windowStart);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.windowStart = Date.now();
      this.sentInWindow = 0;
    }
  }

  /** A ping answered: true with its pong, true too when the socket closed meanwhile (the close is judged apart), false when neither came in time. */
  async roundTrip(ms = PONG_TIMEOUT_MS): Promise<boolean> {
    if (!this.open) return true;
    const id = this.nextPing++;
    let t: NodeJS.Timeout | undefined;
    const pong = new Promise<boolean>((r) => { this.pongs.set(id, () => r(true)); });
    this.send({ t: 'ping', id });
    const answered = await Promise.race([pong, new Promise<boolean>((r) => { t = setTimeout(() => r(false), ms); })]);
    clearTimeout(t);
    this.pongs.delete(id);
    if (!answered && !this.open) return true;
    return answered;
  }

  /** Resolves once the socket has closed, or after `ms`. */
  async closedWithin(ms: number): Promise<boolean> {
    if (this.closed) return true;
    let t: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      new Promise<boolean>((res) => this.closeWaiters.push(() => res(true))),
      new Promise<boolean>((res) => { t = setTimeout(() => res(false), ms); }),
    ]);
    clearTimeout(t);
    return r;
  }

  /** Whether a close the server made is a worded refusal: a code of its own and words. 1006 is a drop with no close frame. */
  static wordedClose(c: { code: number; reason: string }): boolean {
    return c.code !== 1006 && c.code !== 1005 && c.reason.trim().length > 0;
  }

  end(): void {
    this.ws.removeAllListeners('close');
    this.ws.terminate();
  }
}
