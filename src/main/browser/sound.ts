/**
 * A host's sound, for each tab a controller listens to: the host's sound extension captures
 * each of those tabs on its own (`chrome.tabCapture`, see browser/host/sound-extension.ts), and
 * each 20 ms of a tab's PCM goes to that tab's controller as one audio packet carrying the tab's
 * frame id. Two controllers on two tabs of one host each hear their own tab, at once. A tab
 * nobody listens to is not captured: it costs nothing; with nobody listening on the host, the
 * capturing document is closed.
 *
 * The packets reach the server over a CDP connection of its own to the host, as the binding
 * calls of the extension's offscreen document.
 */
import type { BrowserContext, Worker } from 'playwright-core';
import { AUDIO_HEADER_BYTES, writeAudioHeader } from '../../shared/protocol.js';
import { SINK_CHANNELS } from './host/audio-sink.js';
import { CdpConnection } from '../../workers/cdp/connection.js';
import { CAPTURE_PAGE, PACKET_FRAMES, SOUND_BINDING } from './host/sound-extension.js';
import { log } from '../logging.js';
import { OneByOne } from '../../shared/one-by-one.js';

/** One packet's PCM, bytes: 960 frames of stereo s16le (20 ms at 48 kHz) is 3,840. */
export const AUDIO_PACKET_BYTES = PACKET_FRAMES * 2 * SINK_CHANNELS;
/** Longest wait for the sound extension's worker to be there, ms: it starts with the browser. */
const EXTENSION_WAIT_MS = 5_000;
/** Longest wait for the capturing document's CDP target after the worker opened it, ms. */
const CAPTURE_PAGE_WAIT_MS = 3_000;
/** Poll period while that target is not listed yet, ms. */
const CAPTURE_PAGE_POLL_MS = 20;

export interface Listener { targetId: string; frame: number; viewer: number }

interface Heard { l: Listener; seq: number }
interface TargetInfo { targetId: string; type: string; url: string }

export class HostSound {
  /** The tabs being captured, by CDP target id, with who hears each. */
  private heard = new Map<string, Heard>();
  private cdp?: CdpConnection;
  /** The CDP session on the capturing document, while it is open. */
  private session?: string;
  private closed = false;
  /** Changes applied one after another: a late stop must never pass a newer start. */
  private readonly changes = new OneByOne();

  constructor(
    private readonly wsEndpoint: string,
    private readonly context: BrowserContext,
    private readonly send: (viewer: number, bytes: Uint8Array) => void,
  ) {}

  /** Who listens now on this host: every controller, each to its own tab (empty: nobody). */
  listen(ls: Listener[]): Promise<void> {
    return this.changes.run(() => this.apply(ls));
  }

  private async apply(ls: Listener[]): Promise<void> {
    if (this.closed) return;
    const want = new Map(ls.map((l) => [l.targetId, l]));
    for (const targetId of [...this.heard.keys()]) {
      if (want.has(targetId)) continue;
      this.heard.delete(targetId);
      if (this.session) await this.inCapture(`forgeStop(${JSON.stringify(targetId)})`).catch(() => undefined);
    }
    let problem: Error | undefined;
    for (const [targetId, l] of want) {
      const had = this.heard.get(targetId);
      if (had) { had.l = l; continue; }
      try {
        await this.startCapture(targetId, l);
      } catch (e) {
        this.heard.delete(targetId);
        problem ??= e as Error;
      }
      if (this.closed) return;
    }
    if (this.heard.size === 0 && this.session) await this.closeCapturePage();
    if (problem) throw problem;
  }

  private async startCapture(targetId: string, l: Listener): Promise<void> {
    const w = await this.extensionWorker();
    const streamId = await w.evaluate((id) => (globalThis as unknown as { forgeStreamId(id: string): Promise<string> }).forgeStreamId(id), targetId);
    await this.capturePage();
    // Heard before the capture starts, so its first packet is not dropped.
    this.heard.set(targetId, { l, seq: 0 });
    await this.inCapture(`forgeCapture(${JSON.stringify(targetId)}, ${JSON.stringify(streamId)})`);
  }

  private async capturePage(): Promise<void> {
    if (this.session) return;
    if (!this.cdp || this.cdp.isClosed) {
      const cdp = await CdpConnection.connect(this.wsEndpoint);
      if (this.closed) { await cdp.close(); throw new Error('the host ended'); }
      this.cdp = cdp;
      cdp.on('Runtime.bindingCalled', (p: { name: string; payload: string }, sessionId?: string) => {
        if (p.name === SOUND_BINDING && sessionId === this.session) this.packet(p.payload);
      });
      cdp.on('Target.detachedFromTarget', (p: { sessionId: string }) => { if (p.sessionId === this.session) this.session = undefined; });
    }
    const cdp = this.cdp;
    const end = performance.now() + CAPTURE_PAGE_WAIT_MS;
    let target: TargetInfo | undefined;
    while (!target) {
      const { targetInfos } = await cdp.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
      target = targetInfos.find((t) => t.url.endsWith(`/${CAPTURE_PAGE}`));
      if (target) break;
      if (performance.now() > end) throw new Error('the sound extension\'s capturing page did not open');
      await new Promise((r) => setTimeout(r, CAPTURE_PAGE_POLL_MS));
    }
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: target.targetId, flatten: true });
    await cdp.send('Runtime.addBinding', { name: SOUND_BINDING }, sessionId);
    // The target is listed before its script ran.
    for (;;) {
      const r = await cdp.send<{ result: { value?: unknown } }>('Runtime.evaluate', { expression: 'typeof forgeCapture', returnByValue: true }, sessionId);
      if (r.result.value === 'function') break;
      if (performance.now() > end) throw new Error('the sound extension\'s capturing page did not load');
      await new Promise((r) => setTimeout(r, CAPTURE_PAGE_POLL_MS));
    }
    this.session = sessionId;
  }

  private async inCapture(expression: string): Promise<void> {
    if (!this.cdp || !this.session) throw new Error('the sound extension\'s capturing page is not open');
    const r = await this.cdp.send<{ exceptionDetails?: { exception?: { description?: string }; text: string } }>('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, this.session);
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
  }

  private async closeCapturePage(): Promise<void> {
    this.session = undefined;
    const w = await this.extensionWorker();
    await w.evaluate(() => (globalThis as unknown as { forgeOffscreen(open: boolean): Promise<boolean> }).forgeOffscreen(false));
  }

  private async extensionWorker(): Promise<Worker> {
    const found = this.context.serviceWorkers().find((w) => w.url().endsWith('/sound.js'));
    if (found) return found;
    return this.context.waitForEvent('serviceworker', { predicate: (w) => w.url().endsWith('/sound.js'), timeout: EXTENSION_WAIT_MS });
  }

  /** The target ids of the tabs playing sound now (every tab is muted in the host; this is what they play). */
  async audible(): Promise<string[]> {
    const w = await this.extensionWorker();
    return w.evaluate(() => (globalThis as unknown as { forgeAudible(): Promise<string[]> }).forgeAudible());
  }

  /** One binding call: "<targetId> <rate> <base64 PCM>". */
  private packet(payload: string): void {
    const sp1 = payload.indexOf(' ');
    const sp2 = payload.indexOf(' ', sp1 + 1);
    if (sp1 < 0 || sp2 < 0) return;
    const h = this.heard.get(payload.slice(0, sp1));
    if (!h) return;
    const rate = Number(payload.slice(sp1 + 1, sp2));
    const pcm = Buffer.from(payload.slice(sp2 + 1), 'base64');
    if (pcm.length !== AUDIO_PACKET_BYTES || !Number.isInteger(rate) || rate <= 0) {
      log.warn({ bytes: pcm.length, rate }, 'a sound packet of the wrong shape was dropped');
      return;
    }
    const out = new Uint8Array(AUDIO_HEADER_BYTES + AUDIO_PACKET_BYTES);
    writeAudioHeader(new DataView(out.buffer), { channels: SINK_CHANNELS, frame: h.l.frame, seq: h.seq++, rate, stamp: Date.now() % 2 ** 32 });
    out.set(pcm, AUDIO_HEADER_BYTES);
    this.send(h.l.viewer, out);
  }

  close(): void {
    this.closed = true;
    this.heard.clear();
    this.session = undefined;
    void this.cdp?.close();
  }
}
