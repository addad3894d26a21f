/**
 * A host's sound, for the one tab a controller listens to. The host's sound extension mutes
 * every other tab (see workers/cdp/sound-extension.ts), `parec` records the sink's monitor, and
 * each ~20 ms of PCM goes to the listening controller as one audio packet carrying the tab's
 * frame id. While nobody listens, every tab is muted and nothing records: an uncontrolled tab
 * costs nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { BrowserContext, Worker } from 'playwright-core';
import { AUDIO_HEADER_BYTES, writeAudioHeader } from '../../shared/protocol.js';
import { PAREC_BINARY, SINK_CHANNELS, SINK_NAME, SINK_RATE_HZ, type AudioSink } from '../../workers/cdp/audio-sink.js';
import { log } from '../logging.js';

/** One packet's length, ms: the client's jitter buffer holds a few; shorter costs more messages a second, longer more latency. */
export const AUDIO_PACKET_MS = 20;
const BYTES_PER_FRAME = 2 * SINK_CHANNELS;
/** One packet's PCM, bytes: 20 ms of 48 kHz stereo s16le is 3,840. */
export const AUDIO_PACKET_BYTES = (SINK_RATE_HZ * AUDIO_PACKET_MS / 1000) * BYTES_PER_FRAME;
/** What parec asks of the sink as its fragment, ms: below one packet, so a packet is never late by a whole fragment. */
const CAPTURE_LATENCY_MS = 10;
/**
 * After the listened tab changes, recorded sound is dropped for this long, ms: what the earlier
 * tab played just before its mute is still in the sink's and parec's buffers (~2 fragments).
 */
export const SWITCH_SETTLE_MS = 60;
/** Longest wait for the sound extension's worker to be there, ms: it starts with the browser. */
const EXTENSION_WAIT_MS = 5_000;
const SETPRIV_BINARY = '/usr/bin/setpriv';

export interface Listener { targetId: string; frame: number; viewer: number }

export class HostSound {
  private current: Listener | null = null;
  private parec?: ChildProcess;
  private pending: Buffer = Buffer.alloc(0);
  private seq = 0;
  private settleUntil = 0;
  private closed = false;
  /** Listens applied one after another: a late mute must never pass a newer unmute. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: AudioSink,
    private readonly context: BrowserContext,
    private readonly send: (viewer: number, bytes: Uint8Array) => void,
  ) {}

  /** Who listens now, or nobody. */
  listen(l: Listener | null): Promise<void> {
    const run = this.chain.then(() => this.apply(l));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async apply(l: Listener | null): Promise<void> {
    if (this.closed) return;
    const was = this.current;
    if (was && l && was.targetId === l.targetId) { this.current = l; return; }
    if (!was && !l) return;
    this.current = null;
    this.pending = Buffer.alloc(0);
    if (!l) this.stopCapture();
    await this.tellExtension(l?.targetId ?? null);
    if (this.closed) return;
    this.settleUntil = performance.now() + SWITCH_SETTLE_MS;
    this.current = l;
    if (l) this.startCapture();
  }

  private async tellExtension(targetId: string | null): Promise<void> {
    const w = await this.extensionWorker();
    await w.evaluate((id) => (globalThis as unknown as { forgeListen(id: string | null): Promise<boolean> }).forgeListen(id), targetId);
  }

  private async extensionWorker(): Promise<Worker> {
    const found = this.context.serviceWorkers().find((w) => w.url().endsWith('/sound.js'));
    if (found) return found;
    return this.context.waitForEvent('serviceworker', { predicate: (w) => w.url().endsWith('/sound.js'), timeout: EXTENSION_WAIT_MS });
  }

  /** The target ids of the tabs playing sound now (muted or not). */
  async audible(): Promise<string[]> {
    const w = await this.extensionWorker();
    return w.evaluate(() => (globalThis as unknown as { forgeAudible(): Promise<string[]> }).forgeAudible());
  }

  private startCapture(): void {
    if (this.parec || !this.sink.alive) return;
    const child = spawn(SETPRIV_BINARY, [
      '--pdeathsig', 'SIGKILL', '--', PAREC_BINARY,
      '--raw', '--format=s16le', `--rate=${SINK_RATE_HZ}`, `--channels=${SINK_CHANNELS}`,
      `--latency-msec=${CAPTURE_LATENCY_MS}`, '-d', `${SINK_NAME}.monitor`,
    ], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...this.sink.clientEnv() } });
    this.parec = child;
    child.on('error', () => { /* exit follows */ });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-1000); });
    child.stdout!.on('data', (d: Buffer) => this.pcm(d));
    child.once('exit', (code, signal) => {
      if (this.parec === child) this.parec = undefined;
      if (!this.closed && this.current && child.killed === false) log.warn({ code, signal, stderr: stderr.trim() }, 'the sound capture ended; the tab plays silent until control is taken again');
    });
  }

  private stopCapture(): void {
    const c = this.parec;
    this.parec = undefined;
    if (!c?.pid) return;
    try { process.kill(-c.pid, 'SIGKILL'); } catch { /* already gone */ }
  }

  private pcm(d: Buffer): void {
    const l = this.current;
    if (!l || performance.now() < this.settleUntil) return;
    this.pending = this.pending.length ? Buffer.concat([this.pending, d]) : d;
    while (this.pending.length >= AUDIO_PACKET_BYTES) {
      const chunk = this.pending.subarray(0, AUDIO_PACKET_BYTES);
      this.pending = this.pending.subarray(AUDIO_PACKET_BYTES);
      // Silence (a tab that plays nothing, or a page that muted itself) is not sent.
      if (silent(chunk)) continue;
      const out = new Uint8Array(AUDIO_HEADER_BYTES + AUDIO_PACKET_BYTES);
      writeAudioHeader(new DataView(out.buffer), { channels: SINK_CHANNELS, frame: l.frame, seq: this.seq++, rate: SINK_RATE_HZ, stamp: Date.now() % 2 ** 32 });
      out.set(chunk, AUDIO_HEADER_BYTES);
      this.send(l.viewer, out);
    }
  }

  close(): void {
    this.closed = true;
    this.current = null;
    this.stopCapture();
  }
}

/** Whether every sample is zero: the null sink's monitor gives exact zeros when no tab plays. */
function silent(chunk: Buffer): boolean {
  for (let i = 0; i < chunk.length; i++) if (chunk[i] !== 0) return false;
  return true;
}
