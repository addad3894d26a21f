/**
 * `./forge bench input [--json] [--rounds N]`: how soon a person sees the page answer them.
 * Click-to-picture and key-to-picture latency through forge — a viewer's input over the real
 * socket, the server, trusted CDP input, the page repainting, capture, WebP, the socket back —
 * and in the same run the same page driven as screencast viewers are (CDP Input, then the first
 * Page.startScreencast JPEG that shows the answer). Both are timed to the picture's arrival at
 * the viewer's socket: the bench decodes each picture to check it (sharp takes 20-60 ms for a
 * 1280x720 WebP here, a browser's decoder a few), but that decode is not counted.
 * The page turns its whole background black or white on each trusted pointerdown and keydown,
 * so the first picture whose centre changed is the answer. Then a person opening the page:
 * forge's viewer attaching to the tab nobody else watches, against the screencast started anew,
 * each timed to its first picture's arrival (`open_ms`). The last line printed is one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import WebSocket from 'ws';
import { BrowserHost } from '../src/main/browser/host/host.js';
import { CdpConnection } from '../src/workers/cdp/connection.js';
import { FRAME_HEADER_BYTES, FRAME_KIND_BROWSER, decodeServerMessage, encodeControl, readFrameHeader, type ClientMessage } from '../src/shared/protocol.js';
import { root, saveRun, sleep } from './harness.js';
import { startForge } from './mcp/contenders.js';
import { percentile } from './stamp.js';

const json = process.argv.includes('--json');
const roundsIdx = process.argv.indexOf('--rounds');
/** Inputs of each kind per path. */
const ROUNDS = roundsIdx > 0 ? Number(process.argv[roundsIdx + 1]) : 30;
/** Quiet before each input, ms, plus up to one 60 Hz frame of jitter so inputs do not ride the page's vsync. */
const SETTLE_MS = 250;
/** An answer that takes longer than this is a miss, ms. */
const ANSWER_TIMEOUT_MS = 3000;
const W = 1280;
const H = 720;
const CX = W / 2;
const CY = H / 2;
/** Opens of the page per path, each timed to its first picture. */
const OPEN_ROUNDS = Math.max(5, Math.round(ROUNDS / 3));
/** Quiet between a close and the next open, ms: forge parks the unwatched tab's window meanwhile. */
const OPEN_SETTLE_MS = 300;
/** Screencast JPEG quality, as the frames bench uses. */
const SCREENCAST_JPEG_QUALITY = 80;

const log = (s: string): void => { if (!json) process.stderr.write(s + '\n'); };
const round = (n: number): number => Math.round(n * 10) / 10;

const PAGE = `<title>Flip</title><body style="margin:0;height:100vh;background:#000"><script>
let white = false;
const flip = (e) => {
  if (!e.isTrusted) return;
  white = !white;
  document.body.style.background = white ? '#fff' : '#000';
  fetch('/handled?at=' + Date.now());
};
addEventListener('pointerdown', flip);
addEventListener('keydown', flip);
</script>`;

/** What one path shows and how to poke it: the centre's brightness as last seen, and an input. */
interface Path {
  name: string;
  /** True when the last picture's centre is white, undefined before the first picture. */
  white(): boolean | undefined;
  click(): void;
  key(): void;
  /** Each picture once checked, with when it arrived (performance.now()); returns the unsubscribe. */
  onPicture(cb: (arrivedAt: number) => void): () => void;
}

/** Whether the pixel at x,y of an encoded picture is white (the page is only ever black or white). */
async function whiteAt(encoded: Buffer, x: number, y: number): Promise<boolean> {
  const { data, info } = await sharp(encoded).raw().toBuffer({ resolveWithObject: true });
  const o = (y * info.width + x) * info.channels;
  return data[o]! + data[o + 1]! + data[o + 2]! > 3 * 128;
}

/** A forge viewer in control of the agent's tab, over the real socket. */
async function forgePath(port: number, token: string): Promise<{ path: Path; close: () => void }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
  const send = (m: ClientMessage): void => ws.send(encodeControl(m));
  let white: boolean | undefined;
  const listeners = new Set<(arrivedAt: number) => void>();
  let chain = Promise.resolve();
  let you = -1;
  let controlled = false;
  ws.on('message', (data: Buffer, binary: boolean) => {
    if (!binary) return;
    const u8 = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (u8[0] === FRAME_KIND_BROWSER) {
      const arrivedAt = performance.now();
      const h = readFrameHeader(new DataView(u8.buffer, u8.byteOffset, u8.byteLength));
      if (CX < h.x || CX >= h.x + h.w || CY < h.y || CY >= h.y + h.h) return;
      const body = Buffer.from(u8.subarray(FRAME_HEADER_BYTES));
      chain = chain.then(async () => { white = await whiteAt(body, CX - h.x, CY - h.y); for (const cb of listeners) cb(arrivedAt); });
      return;
    }
    const m = decodeServerMessage(u8);
    if (m?.t === 'view') { you = m.you; controlled = m.controller === you; }
  });
  send({ t: 'attach', w: W, h: H });
  while (you < 0) await sleep(20);
  send({ t: 'control', take: true });
  while (!controlled) await sleep(20);
  const mouse = (action: 'down' | 'up'): void => send({ t: 'input', ev: { type: 'mouse', action, x: CX, y: CY, button: 'left', buttons: action === 'down' ? 1 : 0, clickCount: 1 } });
  const key = (action: 'down' | 'up'): void => send({ t: 'input', ev: { type: 'key', action, key: 'a', code: 'KeyA' } });
  return {
    path: {
      name: 'forge',
      white: () => white,
      click: () => { mouse('down'); mouse('up'); },
      key: () => { key('down'); key('up'); },
      onPicture: (cb) => { listeners.add(cb); return () => listeners.delete(cb); },
    },
    close: () => ws.close(),
  };
}

/** A person opening the tab: a new viewer's attach, timed to the arrival of the first picture. */
async function forgeOpen(port: number, token: string): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
  const t0 = performance.now();
  const first = new Promise<number>((r) => {
    ws.on('message', (data: Buffer, binary: boolean) => { if (binary && data[0] === FRAME_KIND_BROWSER) r(performance.now() - t0); });
  });
  ws.send(encodeControl({ t: 'attach', w: W, h: H }));
  const ms = await Promise.race([first, sleep(ANSWER_TIMEOUT_MS).then(() => NaN)]);
  ws.close();
  await sleep(OPEN_SETTLE_MS);
  return ms;
}

/** The same page in a host of the bench's own, watched through CDP's screencast and driven with CDP input. */
async function screencastPath(url: string): Promise<{ path: Path; reopen: () => Promise<number>; close: () => Promise<void> }> {
  const profileDir = mkdtempSync(join(tmpdir(), 'forge-bench-input-'));
  const host = new BrowserHost({ profileKey: 'bench/input', profileDir });
  await host.start();
  const cdp = await CdpConnection.connect(host.wsEndpoint);
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url, newWindow: true });
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  const { windowId } = await cdp.send<{ windowId: number }>('Browser.getWindowForTarget', { targetId });
  await cdp.send('Browser.setWindowBounds', { windowId, bounds: { left: 0, top: 0, width: W, height: H + 87 } });
  await sleep(500);
  let white: boolean | undefined;
  const listeners = new Set<(arrivedAt: number) => void>();
  let chain = Promise.resolve();
  cdp.on('Page.screencastFrame', (f: { data: string; sessionId: number; metadata: { deviceWidth: number; deviceHeight: number } }, sid?: string) => {
    if (sid !== sessionId) return;
    const arrivedAt = performance.now();
    void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }, sessionId).catch(() => undefined);
    const jpeg = Buffer.from(f.data, 'base64');
    chain = chain.then(async () => {
      const meta = await sharp(jpeg).metadata();
      white = await whiteAt(jpeg, Math.floor(meta.width! / 2), Math.floor(meta.height! / 2));
      for (const cb of listeners) cb(arrivedAt);
    });
  });
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: SCREENCAST_JPEG_QUALITY, maxWidth: W, maxHeight: H, everyNthFrame: 1 }, sessionId);
  const mouse = (type: string): void => { void cdp.send('Input.dispatchMouseEvent', { type, x: CX, y: CY, button: 'left', buttons: type === 'mousePressed' ? 1 : 0, clickCount: 1 }, sessionId); };
  const key = (type: string): void => { void cdp.send('Input.dispatchKeyEvent', { type, key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, ...(type === 'keyDown' ? { text: 'a' } : {}) }, sessionId); };
  /** A person opening the page: the screencast started anew, timed to its first picture's arrival. */
  const reopen = async (): Promise<number> => {
    await cdp.send('Page.stopScreencast', {}, sessionId);
    await sleep(OPEN_SETTLE_MS);
    const t0 = performance.now();
    let off: (at: number) => void = () => undefined;
    const first = new Promise<number>((r) => { off = (at) => r(at - t0); listeners.add(off); });
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: SCREENCAST_JPEG_QUALITY, maxWidth: W, maxHeight: H, everyNthFrame: 1 }, sessionId);
    const ms = await Promise.race([first, sleep(ANSWER_TIMEOUT_MS).then(() => NaN)]);
    listeners.delete(off);
    return ms;
  };
  return {
    reopen,
    path: {
      name: 'screencast',
      white: () => white,
      click: () => { mouse('mousePressed'); mouse('mouseReleased'); },
      key: () => { key('keyDown'); key('keyUp'); },
      onPicture: (cb) => { listeners.add(cb); return () => listeners.delete(cb); },
    },
    close: async () => {
      await cdp.close();
      await host.stop();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

/** When the page's handler ran (its Date.now(), reported by the page itself), newest last. */
const handled: number[] = [];

/**
 * One input, timed from its sending to the first picture showing the page's answer, and to the
 * page's handler running (the rest is painting, capture and delivery); undefined on a miss.
 */
async function answer(p: Path, kind: 'click' | 'key'): Promise<{ picture: number; handler: number } | undefined> {
  await sleep(SETTLE_MS + Math.random() * 17);
  const before = p.white();
  const sentAt = Date.now();
  const t0 = performance.now();
  const done = new Promise<number | undefined>((resolve) => {
    const end = (ms: number | undefined): void => { clearTimeout(timer); off(); resolve(ms); };
    const timer = setTimeout(() => end(undefined), ANSWER_TIMEOUT_MS);
    const off = p.onPicture((arrivedAt) => { if (arrivedAt > t0 && p.white() !== before) end(arrivedAt - t0); });
  });
  if (kind === 'click') p.click(); else p.key();
  const picture = await done;
  if (picture === undefined) return undefined;
  for (let i = 0; i < 20 && !handled.some((t) => t >= sentAt); i++) await sleep(10);
  const at = handled.find((t) => t >= sentAt);
  return at === undefined ? undefined : { picture, handler: at - sentAt };
}

const pageServer = createServer((req, res) => {
  const m = /^\/handled\?at=(\d+)/.exec(req.url ?? '');
  if (m) { handled.push(Number(m[1])); res.writeHead(204).end(); return; }
  res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
});
await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${(pageServer.address() as { port: number }).port}/`;

log('starting forge and a host of the bench\'s own…');
const forge = await startForge(root, 'default/bench/input');
const sc = await screencastPath(pageUrl);
let fv: Awaited<ReturnType<typeof forgePath>> | undefined;
const times: Record<string, Record<'click' | 'key' | 'handler' | 'open', number[]>> = { forge: { click: [], key: [], handler: [], open: [] }, screencast: { click: [], key: [], handler: [], open: [] } };
const misses: Record<string, number> = { forge: 0, screencast: 0 };
try {
  await forge.call('browser_navigate', { url: pageUrl });
  fv = await forgePath(forge.info.port, forge.info.viewer_token);
  for (const p of [fv.path, sc.path]) {
    for (let i = 0; i < 100 && p.white() === undefined; i++) await sleep(50);
    if (p.white() === undefined) throw new Error(`no picture came through ${p.name}`);
  }
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of ['click', 'key'] as const) {
      // Alternating which path goes first, so neither always runs on the quieter machine.
      for (const p of i % 2 ? [sc.path, fv.path] : [fv.path, sc.path]) {
        const a = await answer(p, kind);
        if (a === undefined) misses[p.name]!++;
        else { times[p.name]![kind].push(a.picture); times[p.name]!.handler.push(a.handler); }
      }
    }
    if ((i + 1) % 10 === 0) log(`  ${i + 1} of ${ROUNDS} rounds`);
  }
  // Opening the page: nobody else watches it in forge, and the screencast starts anew.
  fv.close();
  fv = undefined;
  await sleep(OPEN_SETTLE_MS);
  for (let i = 0; i < OPEN_ROUNDS; i++) {
    for (const which of i % 2 ? ['screencast', 'forge'] : ['forge', 'screencast']) {
      const ms = which === 'forge' ? await forgeOpen(forge.info.port, forge.info.viewer_token) : await sc.reopen();
      if (Number.isNaN(ms)) misses[which]!++;
      else times[which]!.open.push(ms);
    }
  }
} finally {
  fv?.close();
  await sc.close();
  await forge.stop();
  pageServer.close();
}

const figures = (t: Record<'click' | 'key' | 'handler' | 'open', number[]>, missed: number): Record<string, number> => ({
  click_ms_p50: round(percentile(t.click, 50)),
  click_ms_p95: round(percentile(t.click, 95)),
  key_ms_p50: round(percentile(t.key, 50)),
  key_ms_p95: round(percentile(t.key, 95)),
  /** Of those, input sent to the page's handler running (clicks and keys): the input path alone. */
  handler_ms_p50: round(percentile(t.handler, 50)),
  /** A person opening the page (forge: a viewer's attach; the screencast: its start) to the first picture's arrival. */
  open_ms_p50: round(percentile(t.open, 50)),
  open_ms_p95: round(percentile(t.open, 95)),
  missed,
});
const result = { rounds: ROUNDS, ...figures(times.forge!, misses.forge!), screencast: figures(times.screencast!, misses.screencast!) };
saveRun('input', result);
if (!json) console.table({ forge: figures(times.forge!, misses.forge!), screencast: result.screencast });
console.log(JSON.stringify(result));
process.exit(0);
