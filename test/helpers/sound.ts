/**
 * What a test reads of the page's sound: tone pages, the audio packets a viewer's socket really
 * receives (decoded from the wire), and the level of one pitch in them.
 */
import { AUDIO_HEADER_BYTES, FRAME_KIND_AUDIO, readAudioHeader, type AudioHeader } from '../../src/shared/protocol.js';
import type { TestViewer } from './viewer.js';

export interface Packet extends AudioHeader { pcm: Int16Array }

/** A page that plays a steady tone once `play()` runs; `hush()` mutes it from inside the page. */
export const tone = (hz: number): string => `<title>Tone ${hz}</title><p>${hz} Hz</p>
<script>let ctx, gain;
function play() { ctx = new AudioContext(); const o = ctx.createOscillator(); o.frequency.value = ${hz}; gain = ctx.createGain(); gain.gain.value = 0.5; o.connect(gain).connect(ctx.destination); o.start(); return ctx.state; }
function hush() { gain.gain.value = 0; return true; }
</script>`;

/** Audio packets a viewer's socket receives from now on, decoded from the wire. */
export function audioOf(v: TestViewer): Packet[] {
  const got: Packet[] = [];
  v.ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary || data[0] !== FRAME_KIND_AUDIO) return;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const h = readAudioHeader(view);
    const pcm = new Int16Array(data.buffer.slice(data.byteOffset + AUDIO_HEADER_BYTES, data.byteOffset + data.byteLength));
    got.push({ ...h, pcm });
  });
  return got;
}

/** Goertzel power of `hz` in the left channel of the packets, per sample. */
export function power(ps: Packet[], hz: number): number {
  if (ps.length === 0) return 0;
  const rate = ps[0]!.rate;
  const k = 2 * Math.cos(2 * Math.PI * hz / rate);
  let a = 0, b = 0, n = 0;
  for (const p of ps) {
    for (let i = 0; i < p.pcm.length; i += p.channels) {
      const s = p.pcm[i]! / 32768;
      const next = s + k * a - b;
      b = a; a = next; n++;
    }
  }
  return Math.sqrt(Math.max(0, a * a + b * b - k * a * b)) / n;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until `n` packets that match `pred` came, and answers them. */
export async function waitPackets(ps: Packet[], n: number, pred: (p: Packet) => boolean = () => true, ms = 15_000): Promise<Packet[]> {
  const end = Date.now() + ms;
  for (;;) {
    const got = ps.filter(pred);
    if (got.length >= n) return got;
    if (Date.now() > end) throw new Error(`only ${got.length} of ${n} audio packets came`);
    await sleep(50);
  }
}

/**
 * Level of `hz` in one packet's left channel (Hann-windowed Goertzel, of full scale): the window
 * keeps a tone 20 ms long from leaking into a bin an octave away.
 */
export function packetLevel(p: Packet, hz: number): number {
  const k = 2 * Math.cos(2 * Math.PI * hz / p.rate);
  const n = p.pcm.length / p.channels;
  let a = 0, b = 0;
  for (let i = 0; i < n; i++) {
    const w = 0.5 - 0.5 * Math.cos(2 * Math.PI * i / (n - 1));
    const next = w * p.pcm[i * p.channels]! / 32768 + k * a - b;
    b = a; a = next;
  }
  return 4 * Math.sqrt(Math.max(0, a * a + b * b - k * a * b)) / n;
}
