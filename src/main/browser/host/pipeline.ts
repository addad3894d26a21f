/**
 * The frame pipeline of one browser host, as the main thread drives it: a cdp worker (damage
 * capture into the FrameRing) and an encode worker (WebP into the WebpRing), wired by
 * MessagePorts. `relaySource()` hands the relay what it needs to read this host's frames.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { FrameRing, WebpRing } from '../../../shared/ring.js';
import { ForgeError } from '../../../shared/errors.js';
import type { BrowserHost } from './host.js';
import { FRAME_RING_SLOTS, type CdpWorkerData, type FromCdp, type ToCdp } from '../../../workers/cdp/protocol.js';
import { CAPTURE_MAX_HEIGHT, CAPTURE_MAX_WIDTH } from '../../../shared/capture.js';
import { DEFAULT_ENCODE_MODE, WEBP_RING_SLOTS, WEBP_SLOT_BYTES, type EncodeMode, type EncodeReady, type EncodeStats, type EncodeWorkerData, type FromEncode } from '../../../workers/encode/protocol.js';
import type { Rect } from '../../../shared/capture.js';
import { threadHeaps } from '../../../workers/thread-heaps.js';

/** Bound on one capture request (window placement and resize included), ms. */
const CAPTURE_REQUEST_TIMEOUT_MS = 10_000;
/** Bound on the workers' start, ms. */
const PIPELINE_START_TIMEOUT_MS = 10_000;

export interface RelaySource {
  /** The relay's end of the encoder's port: EncodedFrame in, KeyframeWanted/TabUnviewed out. */
  port: MessagePort;
  webpRing: SharedArrayBuffer;
  webpRingSlots: number;
  webpSlotBytes: number;
}

export interface PipelineOptions { mode?: EncodeMode }

/** A worker's sentence; `fatal`: the worker is gone and the pipeline captures no more. */
export interface PipelineProblem { sentence: string; fatal: boolean }

export class FramePipeline {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (m: FromCdp) => void; reject: (e: Error) => void }>();
  private relayPort?: MessagePort;
  /** How the capture reads the screen: 'mapped', or why it reads with pread. */
  framebuffer = '';
  /** The encode mode that runs, and why it is not the one asked for ('' when it is). */
  encodeMode: EncodeMode = DEFAULT_ENCODE_MODE;
  encodeFallback = '';
  /** 'watched', or why a popup window (a select's list) cannot be clicked with the mouse on this host. */
  popupWatch = '';
  /** FrameRing bytes the capture holds written now: slots given back when a layout shrinks or a tab is no longer watched count 0. */
  frameRingHeldBytes = 0;
  /** First pictures of this host's tabs taken because their window's whole paint never came in time (the capture's count). */
  lateFirstPictures = 0;
  /** The FrameRing's whole size, bytes: what it would hold if every slot had held a frame of the largest viewport. */
  readonly frameRingBytes = FRAME_RING_SLOTS * CAPTURE_MAX_WIDTH * CAPTURE_MAX_HEIGHT * 4;
  /** Latest encoder counters (about once a second). */
  encodeStats: Omit<EncodeStats, 't'> = { frames: 0, keyframes: 0, patches: 0, bytes: 0, encodeMs: 0, dropped: 0 };
  private statsListeners: Array<(s: Omit<EncodeStats, 't'>) => void> = [];
  private problemListeners: Array<(p: PipelineProblem) => void> = [];
  private stopped = false;
  /** Why the pipeline can no longer capture (a worker failed or exited), or '' while it can. */
  private broken = '';

  private constructor(
    private readonly cdp: Worker,
    private readonly encoder: Worker,
    relayPort: MessagePort,
    private readonly webpRing: WebpRing,
  ) {
    this.relayPort = relayPort;
    cdp.on('message', (m: FromCdp) => {
      if (m.t === 'popups') this.popups = m.open;
      if (m.t === 'ring') this.frameRingHeldBytes = m.heldBytes;
      if (m.t === 'late_first_pictures') this.lateFirstPictures = m.total;
      if (m.t === 'error') this.report({ sentence: m.message, fatal: false });
      if (m.t === 'capturing' || m.t === 'uncaptured' || m.t === 'failed' || m.t === 'screen_moused') {
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (m.t === 'failed') w?.reject(new ForgeError('bad_request', m.message));
        else w?.resolve(m);
      }
    });
    encoder.on('message', (m: FromEncode) => {
      if (m.t === 'error') this.report({ sentence: m.message, fatal: false });
      if (m.t === 'stats') {
        const { t: _t, ...s } = m;
        this.encodeStats = s;
        for (const cb of this.statsListeners) cb(s);
      }
    });
    for (const [w, name] of [[cdp, 'capture'], [encoder, 'encode']] as const) {
      w.on('error', (e) => this.fail(`the frame pipeline's ${name} worker failed (${e.message}): this host's tabs show no new pictures`));
      w.on('exit', (code) => {
        if (!this.stopped) this.fail(`the frame pipeline's ${name} worker exited (code ${code}): this host's tabs show no new pictures`);
      });
    }
  }

  static async start(host: BrowserHost, opts: PipelineOptions = {}): Promise<FramePipeline> {
    const frameRing = FrameRing.create(FRAME_RING_SLOTS, CAPTURE_MAX_WIDTH, CAPTURE_MAX_HEIGHT);
    const webpRing = WebpRing.create(WEBP_RING_SLOTS, WEBP_SLOT_BYTES);
    const frames = new MessageChannel();
    const relay = new MessageChannel();
    const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
    const encodeHeap = threadHeaps.claim('encode', host.profileKey);
    const cdpHeap = threadHeaps.claim('capture', host.profileKey);
    const encoder = new Worker(here('../../../workers/encode/worker.js'), {
      workerData: {
        heap: encodeHeap,
        frameRing: frameRing.sab, frameRingSlots: FRAME_RING_SLOTS,
        webpRing: webpRing.sab, webpRingSlots: WEBP_RING_SLOTS, webpSlotBytes: WEBP_SLOT_BYTES,
        frames: frames.port2, relay: relay.port1, mode: opts.mode ?? DEFAULT_ENCODE_MODE,
      } satisfies EncodeWorkerData,
      transferList: [frames.port2, relay.port1],
    });
    const cdp = new Worker(here('../../../workers/cdp/worker.js'), {
      workerData: {
        heap: cdpHeap,
        wsEndpoint: host.wsEndpoint, display: host.display, fbDir: host.fbDir,
        frameRing: frameRing.sab, frameRingSlots: FRAME_RING_SLOTS, frames: frames.port1,
      } satisfies CdpWorkerData,
      transferList: [frames.port1],
    });
    encoder.once('exit', () => threadHeaps.release(encodeHeap));
    cdp.once('exit', () => threadHeaps.release(cdpHeap));
    const [cdpReady, encoderReady] = await Promise.all([ready(cdp), ready(encoder)]).catch(async (e: Error) => {
      await Promise.allSettled([cdp.terminate(), encoder.terminate()]);
      throw new ForgeError('host_start_failed', `the frame pipeline could not start: ${e.message}`);
    });
    const pipeline = new FramePipeline(cdp, encoder, relay.port2, webpRing);
    pipeline.framebuffer = (cdpReady as { framebuffer?: string }).framebuffer ?? '';
    pipeline.popupWatch = (cdpReady as { popups?: string }).popups ?? '';
    pipeline.encodeMode = (encoderReady as EncodeReady).mode;
    pipeline.encodeFallback = (encoderReady as EncodeReady).fallback;
    return pipeline;
  }

  /** What the relay needs to read this host's frames; the port can be handed over once. */
  relaySource(): RelaySource {
    const port = this.relayPort;
    if (!port) throw new Error('the relay source was already handed over');
    this.relayPort = undefined;
    return { port, webpRing: this.webpRing.sab, webpRingSlots: this.webpRing.slots, webpSlotBytes: this.webpRing.slotBytes };
  }

  /** Starts (or resizes) the capture of page `targetId` at a w×h viewport; frames carry `tab`. */
  async capture(targetId: string, tab: number, w: number, h: number): Promise<Rect> {
    const m = await this.request({ t: 'capture', targetId, frame: tab, w, h, id: this.nextId++ });
    return (m as Extract<FromCdp, { t: 'capturing' }>).viewport;
  }

  async uncapture(targetId: string): Promise<void> {
    await this.request({ t: 'uncapture', targetId, id: this.nextId++ });
  }

  /** The popup windows (a select's list) open on the host's screen now, screen px. */
  popups: Rect[] = [];

  /** Presses the host's own mouse at a screen point (XTest): how a popup window is clicked. */
  async screenMouse(action: 'move' | 'down' | 'up', x: number, y: number, button: string): Promise<void> {
    await this.request({ t: 'screen_mouse', action, x, y, button, id: this.nextId++ }, 'take the mouse on its screen');
  }

  onStats(cb: (s: Omit<EncodeStats, 't'>) => void): void { this.statsListeners.push(cb); }

  /** The workers' sentences: a frame dropped, the damage stream ended, a worker failed or exited (`fatal`). */
  onProblem(cb: (p: PipelineProblem) => void): void { this.problemListeners.push(cb); }

  /** Counters from the cdp worker (capture reports). */
  onCapture(cb: (m: Extract<FromCdp, { t: 'captured' }>) => void): void {
    this.cdp.on('message', (m: FromCdp) => { if (m.t === 'captured') cb(m); });
  }

  /** `what`: the host's task in words, for the timeout's sentence. */
  private request(m: ToCdp & { id: number }, what = 'place the tab\'s window'): Promise<FromCdp> {
    if (this.stopped) return Promise.reject(new ForgeError('host_exited', 'the frame pipeline has stopped'));
    if (this.broken) return Promise.reject(new ForgeError('host_exited', this.broken));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(m.id);
        reject(new ForgeError('timeout', `the browser host did not ${what} within ${CAPTURE_REQUEST_TIMEOUT_MS / 1000} s`));
      }, CAPTURE_REQUEST_TIMEOUT_MS);
      this.waiting.set(m.id, {
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.cdp.postMessage(m);
    });
  }

  private report(p: PipelineProblem): void {
    for (const cb of this.problemListeners) cb(p);
  }

  /** A worker is gone: every pending call and every later one rejects with `sentence`. */
  private fail(sentence: string): void {
    if (this.broken) return;
    this.broken = sentence;
    this.rejectAll(sentence);
    this.report({ sentence, fatal: true });
  }

  private rejectAll(sentence: string): void {
    for (const w of this.waiting.values()) w.reject(new ForgeError('host_exited', sentence));
    this.waiting.clear();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.rejectAll('the frame pipeline has stopped');
    const done = (w: Worker, t: string): Promise<void> => new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      w.on('message', (m: { t: string }) => { if (m.t === t) { clearTimeout(timer); resolve(); } });
      w.once('exit', () => { clearTimeout(timer); resolve(); });
    });
    this.cdp.postMessage({ t: 'stop' } satisfies ToCdp);
    this.encoder.postMessage({ t: 'stop' });
    await Promise.all([done(this.cdp, 'stopped'), done(this.encoder, 'stopped')]);
    this.relayPort?.close();
    await Promise.allSettled([this.cdp.terminate(), this.encoder.terminate()]);
  }
}

function ready(w: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a worker did not start in time')), PIPELINE_START_TIMEOUT_MS);
    w.on('message', (m: { t: string }) => { if (m.t === 'ready') { clearTimeout(timer); resolve(m); } });
    w.once('error', (e) => { clearTimeout(timer); reject(e); });
    w.once('exit', (code) => { clearTimeout(timer); reject(new Error(`a worker exited at start (code ${code})`)); });
  });
}
