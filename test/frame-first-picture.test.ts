/**
 * A tab's first picture after its window moves onto the screen: a real host, the capture and
 * encode workers, the real relay on uWS, and a `ws` viewer. Chromium's compositor is held
 * stopped (SIGSTOP on its GPU process, the only way to make a real paint late on demand) while
 * the window is placed, so the screen shows another tab's leftovers there until it paints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, readFrameHeader, type FrameHeader } from '../dist/src/shared/protocol.js';
import { FrameRig, RigViewer, sleep } from './helpers/frame-rig.js';
import { processes } from './helpers/processes.js';

const W = 1280;
const H = 720;
const solid = (colour: string): string => `<body style="margin:0;background:${colour}"></body>`;

let rig: FrameRig;

class RecordingViewer extends RigViewer {
  frames: Array<FrameHeader & { bytes: Buffer }> = [];
  constructor(rig: FrameRig) {
    super(rig);
    this.ws.on('message', (data: Buffer, binary: boolean) => {
      if (!binary || data[0] !== 1) return;
      const h = readFrameHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
      this.frames.push({ ...h, bytes: Buffer.from(data.subarray(FRAME_HEADER_BYTES)) });
    });
  }
  async until(n: number): Promise<void> {
    for (let waited = 0; this.frames.length < n && waited < 10_000; waited += 50) await sleep(50);
  }
}

/** Share of a frame's pixels within 24 of `rgb` on every channel. */
async function shareOf(bytes: Buffer, rgb: [number, number, number]): Promise<number> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let near = 0;
  for (let i = 0; i < info.width * info.height; i++) {
    if (Math.abs(data[i * 3]! - rgb[0]) <= 24 && Math.abs(data[i * 3 + 1]! - rgb[1]) <= 24 && Math.abs(data[i * 3 + 2]! - rgb[2]) <= 24) near++;
  }
  return near / (info.width * info.height);
}

/** The host's compositor process: it draws every window onto the X screen. */
function compositorPid(): number {
  const all = processes();
  const mine = new Set([rig.host.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) if (mine.has(p.ppid) && !mine.has(p.pid)) { mine.add(p.pid); grew = true; }
  }
  const gpu = all.find((p) => mine.has(p.pid) && p.cmd.includes('--type=gpu-process'));
  if (!gpu) throw new Error('the host has no GPU process to hold');
  return gpu.pid;
}

beforeAll(async () => {
  rig = await FrameRig.start('first-picture', { '/red.html': solid('#ff0000'), '/green.html': solid('#00c000') });
}, 60_000);

afterAll(async () => { await rig?.stop(); });

/** A red tab watched, then let go: its pixels stay on the screen where the next window goes. */
async function leaveRedBehind(red: string): Promise<void> {
  await rig.pipeline.capture(red, 1, W, H);
  const first = await new RecordingViewer(rig).open();
  first.watch(1);
  await first.until(2);
  await sleep(300);
  first.close();
  await rig.pipeline.uncapture(red);
}

/**
 * Watches `green` as frame `frame` with Chromium's compositor stopped (and the X server too, for
 * `xLateMs` of the placement) and answers its first frame once the compositor runs again.
 */
async function firstFrameOf(green: string, frame: number, xLateMs: number): Promise<FrameHeader & { bytes: Buffer }> {
  const gpu = compositorPid();
  const held = [gpu];
  process.kill(gpu, 'SIGSTOP');
  const resume = (pid: number): void => { if (held.includes(pid)) { held.splice(held.indexOf(pid), 1); process.kill(pid, 'SIGCONT'); } };
  try {
    let xResumed: Promise<void> = Promise.resolve();
    if (xLateMs > 0) {
      const x = rig.host.xvfbPid;
      held.push(x);
      process.kill(x, 'SIGSTOP');
      xResumed = sleep(xLateMs).then(() => resume(x));
    }
    await rig.pipeline.capture(green, frame, W, H);
    await xResumed;
    const v = await new RecordingViewer(rig).open();
    v.watch(frame);
    // The compositor paints late, as under load.
    await sleep(400);
    resume(gpu);
    await v.until(1);
    await sleep(300);
    v.close();
    await rig.pipeline.uncapture(green);
    return v.frames[0]!;
  } finally {
    for (const pid of [...held]) resume(pid);
  }
}

describe("a tab's first picture", () => {
  const cases: Array<{ name: string; frame: number; xLateMs: number }> = [
    { name: 'is its own page painted whole, never what the screen held where its window was put', frame: 2, xLateMs: 0 },
    { name: 'is its own page too when the X server moves the window late, after the placement answered', frame: 4, xLateMs: 300 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const red = await rig.openTab('red');
      const green = await rig.openTab('green');
      await leaveRedBehind(red);
      const key = await firstFrameOf(green, c.frame, c.xLateMs);
      expect(key.flags & FRAME_FLAG_KEYFRAME).toBeTruthy();
      expect(await shareOf(key.bytes, [0, 192, 0])).toBeGreaterThan(0.99);
    });
  }
});
