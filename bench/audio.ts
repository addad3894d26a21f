/**
 * `./forge bench audio [--json] [--rounds N]`: the page's sound at its controller.
 * - Latency: a controller's click over the real socket makes the page beep (1 kHz) and turn its
 *   background white in the same trusted handler; page-to-socket latency is the handler's clock
 *   to the first audio packet at the viewer's socket that carries the beep; the A/V offset is that
 *   packet's arrival against the first picture whose centre is white.
 * - Cost: the page plays a steady tone for STEADY_S; bytes per second to the controller, and the
 *   CPU of the server, its audio daemon, Chromium's audio service and the capturing page per
 *   second of sound.
 * The last line printed is one JSON object.
 */
import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import WebSocket from 'ws';
import { AUDIO_HEADER_BYTES, FRAME_HEADER_BYTES, FRAME_KIND_AUDIO, FRAME_KIND_BROWSER, decodeServerMessage, encodeControl, readAudioHeader, readFrameHeader, type ClientMessage } from '../src/shared/protocol.js';
import { root, saveRun, sleep } from './harness.js';
import { startForge } from './mcp/contenders.js';
import { percentile } from './stamp.js';

const json = process.argv.includes('--json');
const roundsIdx = process.argv.indexOf('--rounds');
/** Beeps timed. */
const ROUNDS = roundsIdx > 0 ? Number(process.argv[roundsIdx + 1]) : 20;
/** Quiet between beeps, ms: longer than the beep and its tail in every buffer. */
const SETTLE_MS = 600;
/** A beep not heard within this is a miss, ms. */
const ANSWER_TIMEOUT_MS = 3000;
/** The steady tone's length for the cost figures, s. */
const STEADY_S = 5;
/** The beep's pitch, Hz, and the Goertzel level (of full scale) above which a packet carries it. */
const BEEP_HZ = 1000;
const BEEP_LEVEL = 0.05;
const W = 1280;
const H = 720;
const CX = W / 2;
const CY = H / 2;
const CLK_TCK = 100;

const log = (s: string): void => { if (!json) process.stderr.write(s + '\n'); };
const round = (n: number): number => Math.round(n * 10) / 10;

const PAGE = `<title>Beep</title><body style="margin:0;height:100vh;background:#000"><script>
let ctx, white = false;
addEventListener('pointerdown', (e) => {
  if (!e.isTrusted) return;
  const at = Date.now();
  ctx ??= new AudioContext();
  const o = ctx.createOscillator(); o.frequency.value = ${BEEP_HZ}; o.connect(ctx.destination);
  o.start(); o.stop(ctx.currentTime + 0.15);
  white = !white;
  document.body.style.background = white ? '#fff' : '#000';
  fetch('/handled?at=' + at);
});
function hum() { const o = ctx.createOscillator(); o.frequency.value = 440; o.connect(ctx.destination); o.start(); window.humming = o; return true; }
function hush() { window.humming.stop(); return true; }
</script>`;

/** Level of `hz` in the left channel of one packet, of full scale. */
function level(pcm: Int16Array, channels: number, rate: number, hz: number): number {
  const k = 2 * Math.cos(2 * Math.PI * hz / rate);
  let a = 0, b = 0, n = 0;
  for (let i = 0; i < pcm.length; i += channels) { const x = pcm[i]! / 32768 + k * a - b; b = a; a = x; n++; }
  return 2 * Math.sqrt(Math.max(0, a * a + b * b - k * a * b)) / n;
}

/** CPU ms (user+system) of these pids, threads included. */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch { /* gone */ }
  }
  return (ticks * 1000) / CLK_TCK;
}

/**
 * The server and the processes that carry sound: its audio daemon, Chromium's audio service (the
 * tab captures) and the extension's renderer (the capturing page), found among its descendants.
 */
function audioPids(server: number): number[] {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(name), readFileSync(`/proc/${name}/cmdline`, 'utf8'));
    } catch { /* gone */ }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === server) return true;
    return false;
  };
  const out = [server];
  for (const [pid, c] of cmd) if (under(pid) && /pulseaudio|audio\.mojom\.AudioService|--extension-process/.test(c)) out.push(pid);
  return out;
}

const handled: number[] = [];
const pageServer = createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  if (u.pathname === '/handled') { handled.push(Number(u.searchParams.get('at'))); res.end('ok'); return; }
  res.setHeader('content-type', 'text/html');
  res.end(PAGE);
});
await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${(pageServer.address() as { port: number }).port}/`;

log('starting forge…');
const forge = await startForge(root, 'default/bench/audio');
const ws = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws?token=${forge.info.viewer_token}`);
let you = -1;
let controlled = false;
let white: boolean | undefined;
let whiteAt = 0;
let beepAt = 0;
let audioBytes = 0;
let chain = Promise.resolve();
ws.on('message', (data: Buffer, binary: boolean) => {
  if (!binary) return;
  const u8 = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const arrived = Date.now();
  if (u8[0] === FRAME_KIND_AUDIO) {
    audioBytes += u8.byteLength;
    const h = readAudioHeader(new DataView(u8.buffer, u8.byteOffset, u8.byteLength));
    const pcm = new Int16Array(u8.slice(AUDIO_HEADER_BYTES).buffer);
    if (!beepAt && level(pcm, h.channels, h.rate, BEEP_HZ) > BEEP_LEVEL) beepAt = arrived;
    return;
  }
  if (u8[0] === FRAME_KIND_BROWSER) {
    const h = readFrameHeader(new DataView(u8.buffer, u8.byteOffset, u8.byteLength));
    if (CX < h.x || CX >= h.x + h.w || CY < h.y || CY >= h.y + h.h) return;
    const body = Buffer.from(u8.subarray(FRAME_HEADER_BYTES));
    chain = chain.then(async () => {
      const { data: px, info } = await sharp(body).raw().toBuffer({ resolveWithObject: true });
      const o = ((CY - h.y) * info.width + (CX - h.x)) * info.channels;
      const now = px[o]! + px[o + 1]! + px[o + 2]! > 3 * 128;
      if (white !== undefined && now !== white && !whiteAt) whiteAt = arrived;
      white = now;
    });
    return;
  }
  const m = decodeServerMessage(u8);
  if (m?.t === 'view') { you = m.you; controlled = m.controller === you; }
});
const send = (m: ClientMessage): void => ws.send(encodeControl(m));
const click = (): void => {
  send({ t: 'input', ev: { type: 'mouse', action: 'down', x: CX, y: CY, button: 'left', buttons: 1, clickCount: 1 } });
  send({ t: 'input', ev: { type: 'mouse', action: 'up', x: CX, y: CY, button: 'left', buttons: 0, clickCount: 1 } });
};

const latency: number[] = [];
const offset: number[] = [];
let missed = 0;
let kbPerS = 0;
let cpuPerS = 0;
let audioCpuPerS = 0;
try {
  await forge.call('browser_navigate', { url: pageUrl });
  await new Promise<void>((resolve, reject) => { if (ws.readyState === WebSocket.OPEN) resolve(); else { ws.once('open', () => resolve()); ws.once('error', reject); } });
  send({ t: 'attach', w: W, h: H });
  while (you < 0) await sleep(20);
  send({ t: 'control', take: true });
  while (!controlled) await sleep(20);
  for (let i = 0; i < 100 && white === undefined; i++) await sleep(50);
  if (white === undefined) throw new Error('no picture came');
  // A first click makes the page's AudioContext; it is not timed.
  click();
  await sleep(SETTLE_MS * 2);
  for (let i = 0; i < ROUNDS; i++) {
    beepAt = 0; whiteAt = 0;
    const before = handled.length;
    click();
    const end = Date.now() + ANSWER_TIMEOUT_MS;
    while ((!beepAt || !whiteAt || handled.length === before) && Date.now() < end) await sleep(5);
    if (!beepAt || handled.length === before) missed++;
    else {
      latency.push(beepAt - handled[handled.length - 1]!);
      if (whiteAt) offset.push(beepAt - whiteAt);
    }
    await sleep(SETTLE_MS + Math.random() * 17);
  }
  log(`${latency.length} beeps timed, ${missed} missed; a steady tone for ${STEADY_S} s…`);
  await forge.call('browser_evaluate', { function: '() => hum()' });
  await sleep(500);
  const pids = audioPids(forge.info.pid);
  const cpu0 = cpuMs(pids);
  const audio0 = cpuMs(pids.slice(1));
  const bytes0 = audioBytes;
  const t0 = performance.now();
  await sleep(STEADY_S * 1000);
  const s = (performance.now() - t0) / 1000;
  kbPerS = (audioBytes - bytes0) / 1024 / s;
  cpuPerS = (cpuMs(pids) - cpu0) / s;
  audioCpuPerS = (cpuMs(pids.slice(1)) - audio0) / s;
  await forge.call('browser_evaluate', { function: '() => hush()' });
} finally {
  ws.close();
  await forge.stop();
  pageServer.close();
}

const result = {
  rounds: ROUNDS,
  missed,
  latency_ms_p50: round(percentile(latency, 50)),
  latency_ms_p95: round(percentile(latency, 95)),
  kb_per_s: round(kbPerS),
  cpu_ms_per_s: round(cpuPerS),
  /** Of that, the audio daemon's, Chromium's audio service's (the tab capture) and the capturing page's own (the rest is the server, frames of the page included). */
  audio_processes_cpu_ms_per_s: round(audioCpuPerS),
  /** Sound's arrival minus its picture's, ms: positive when the sound comes later. */
  av_offset_ms_p50: round(percentile(offset, 50)),
};
saveRun('audio', result);
if (!json) console.table(result);
console.log(JSON.stringify({ latency_ms_p50: result.latency_ms_p50, latency_ms_p95: result.latency_ms_p95, kb_per_s: result.kb_per_s, cpu_ms_per_s: result.cpu_ms_per_s, av_offset_ms_p50: result.av_offset_ms_p50 }));
process.exit(0);
