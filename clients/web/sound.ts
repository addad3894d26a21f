/**
 * The page's sound at this client: the audio packets the server sends to the tab's controller,
 * played through Web Audio after a small jitter buffer. Only the tab this client shows plays; a
 * packet of another tab is dropped. The AudioContext is made (unlocked) by the take-control
 * press, as browsers allow sound only after a gesture; mute is this client's own.
 */
import { AUDIO_HEADER_BYTES, readAudioHeader } from '../../src/shared/protocol.js';
import { SOUND_HEARD_MS } from './limits.js';
import { JitterBuffer } from './jitter.js';

export class PageSound {
  muted = false;
  /** Packets played and dropped (another tab's, muted, or before the unlock): what a test reads. */
  readonly counts = { played: 0, dropped: 0 };
  private ctx: AudioContext | null = null;
  private gain: GainNode | null = null;
  /** When each packet plays: a buffer that starts small and grows on a rough link. */
  readonly jitter = new JitterBuffer();
  private frame: number | undefined;
  private quietTimer: number | undefined;
  private wasHeard = false;
  /** Called when whether the shown tab is heard changed. */
  onHeard: (heard: boolean) => void = () => {};

  /** Makes the AudioContext: call inside a press (the take-control one). */
  unlock(): void {
    if (!this.ctx) {
      try {
        this.ctx = new AudioContext({ latencyHint: 'interactive', sampleRate: 48_000 });
        this.gain = this.ctx.createGain();
        this.gain.connect(this.ctx.destination);
      } catch { return; }
    }
    void this.ctx.resume().catch(() => undefined);
  }

  /** The tab this client shows, by the frame id its packets carry (undefined: none). */
  show(frame: number | undefined): void {
    if (frame === this.frame) return;
    this.frame = frame;
    this.jitter.reset();
    this.setHeard(false);
  }

  setMuted(muted: boolean): void {
    this.muted = muted;
    if (this.gain) this.gain.gain.value = muted ? 0 : 1;
  }

  get heard(): boolean { return this.wasHeard; }

  push(buf: ArrayBuffer): void {
    const h = readAudioHeader(new DataView(buf));
    if (this.frame === undefined || h.frame !== this.frame || h.channels === 0) { this.counts.dropped++; return; }
    this.setHeard(true);
    const ctx = this.ctx;
    if (!ctx || ctx.state !== 'running' || !this.gain) { this.counts.dropped++; return; }
    const pcm = new Int16Array(buf, AUDIO_HEADER_BYTES, (buf.byteLength - AUDIO_HEADER_BYTES) >> 1);
    const frames = Math.floor(pcm.length / h.channels);
    const ab = ctx.createBuffer(h.channels, frames, h.rate);
    for (let c = 0; c < h.channels; c++) {
      const out = ab.getChannelData(c);
      for (let i = 0; i < frames; i++) out[i] = pcm[i * h.channels + c]! / 32768;
    }
    const src = ctx.createBufferSource();
    src.buffer = ab;
    src.connect(this.gain);
    src.start(this.jitter.schedule(ctx.currentTime, ab.duration));
    // The first packet that really plays redraws the mark (it may already say heard).
    if (++this.counts.played === 1) this.onHeard(true);
  }

  private setHeard(heard: boolean): void {
    clearTimeout(this.quietTimer);
    if (heard) this.quietTimer = window.setTimeout(() => this.setHeard(false), SOUND_HEARD_MS);
    if (heard === this.wasHeard) return;
    this.wasHeard = heard;
    this.onHeard(heard);
  }
}
