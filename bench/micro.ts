/**
 * `./forge bench micro [--json]`: the frame path's three per-frame hot spots, alone, with tinybench
 * (warm-up, then timed samples):
 * - the ring: the capture claims a FrameRing slot, writes its header and publishes it, the
 *   encoder frees it;
 * - the band shrink: one coarse damage rectangle (a whole 1280x720 screen) compared with the
 *   previous frame and shrunk to the 16 rows that changed (bands.ts `writeDamage`, native or JS);
 * - the fan-out's per-viewer send decision: one patch frame to 100 viewers of a tab, each
 *   checked for a backlog and for holding the frame the patch builds on (fanout.ts `frame`);
 * - the terminal's screen model parsing coloured output, bare and with every handler guarded
 *   (term-handler-guard.ts), side by side: what the guard costs per MB;
 * - the terminal feed's plain-text check of one PTY read (a flood's 4 KB of text), by
 *   native/plaintext and by the JS walk it falls back to, side by side;
 * - the viewer door's check of one gesture (a mouse move: 20-60 a second from a person moving the
 *   mouse), by its zod schema, beside the hand-written check it replaced (kept here as the yardstick).
 * Printed with console.table; the last line of `--json` is
 * `{"<task>": {"ops_per_s", "mean_ns", "p50_ns", "samples"}, …}`.
 */
import { Bench } from 'tinybench';
import { FRAME_FLAG_KEYFRAME } from '../src/shared/protocol.js';
import { FrameRing, F_BASE_SEQ, F_H, F_SEQ, F_STATE, F_FRAME, F_W, SLOT_FREE, SLOT_READY, type Band, type WebpFrame } from '../src/shared/ring.js';
import { writeDamage, type Source, type Target } from '../src/workers/cdp/row-diff.js';
import { Fanout, type ViewerSink } from '../src/workers/relay/fanout.js';
import xtermHeadless from '@xterm/headless';
import { guardHandlers } from '../src/shared/term-handler-guard.js';
import { checkedMessage } from '../src/main/viewer-messages-schema.js';
import { isPlain, plainNative } from '../src/workers/pty/feed.js';

const json = process.argv.includes('--json');

/** Time budget of each task's timed samples, ms: long enough for a stable p50 on a shared core. */
const TASK_TIME_MS = 1_000;
/** Warm-up budget of each task, ms: the JIT settles before any sample counts. */
const WARMUP_TIME_MS = 250;
/** The screen the band shrink works on, px: forge's default page size. */
const SCREEN_W = 1280;
const SCREEN_H = 720;
/** Rows of the screen that really change each frame: a line of typing. */
const CHANGED_ROWS = 16;
/** Viewers of the tab in the fan-out task: a team watching one agent. */
const VIEWERS = 100;

// ---- the ring ----
const ring = FrameRing.create(4, SCREEN_W, SCREEN_H);
const NOTHING = new Set<number>();
let ringSeq = 0;
const BANDS: Band[] = [{ x: 0, y: 0, w: SCREEN_W, h: CHANGED_ROWS }];

function ringClaimPublish(): void {
  const slot = ring.claim(NOTHING);
  if (slot < 0) throw new Error('the ring had no free slot: a slot was not freed');
  ring.set(slot, F_SEQ, ++ringSeq);
  ring.set(slot, F_FRAME, 1);
  ring.set(slot, F_W, SCREEN_W);
  ring.set(slot, F_H, SCREEN_H);
  ring.set(slot, F_BASE_SEQ, ringSeq - 1);
  ring.setBands(slot, BANDS);
  ring.set(slot, F_STATE, SLOT_READY);
  if (!ring.pin(slot, ringSeq)) throw new Error('a published slot could not be pinned');
  ring.release(slot);
  ring.set(slot, F_STATE, SLOT_FREE);
}

// ---- the band shrink ----
const screen = new Uint8Array(SCREEN_W * SCREEN_H * 4);
const target: Target = { rgba: new Uint8Array(SCREEN_W * SCREEN_H * 4), seen: new Uint8Array(SCREEN_W * SCREEN_H * 4), w: SCREEN_W };
const source: Source = { px: screen, stride: SCREEN_W, x: 0 };
const DAMAGE: Band = { x: 0, y: 0, w: SCREEN_W, h: SCREEN_H };
const CHANGED_FROM = (SCREEN_H - CHANGED_ROWS) >> 1;
writeDamage(source, DAMAGE, target, [], true);
let shade = 0;

function bandShrink(): void {
  // A new colour in the changed rows each frame, so every run finds exactly those rows changed.
  shade = (shade + 1) & 0xff;
  screen.fill(shade, CHANGED_FROM * SCREEN_W * 4, (CHANGED_FROM + CHANGED_ROWS) * SCREEN_W * 4);
  const bands = writeDamage(source, DAMAGE, target);
  if (bands.length !== 1 || bands[0]!.h !== CHANGED_ROWS) throw new Error(`the damage shrank to ${JSON.stringify(bands)}, not to its ${CHANGED_ROWS} changed rows`);
}

// ---- the fan-out's per-viewer send ----
const sink: ViewerSink = { send: () => true, buffered: () => 0, cork: (fn) => fn() };
const fanout = new Fanout();
for (let id = 1; id <= VIEWERS; id++) fanout.watch(id, sink, 1);
const PART = new Uint8Array(2_000);
let fanSeq = 1;
fanout.frame({ seq: fanSeq, frame: 1, flags: FRAME_FLAG_KEYFRAME, baseSeq: 0, parts: [PART] } satisfies WebpFrame);

function fanoutPatch(): void {
  const seq = fanSeq + 1;
  fanout.frame({ seq, frame: 1, flags: 0, baseSeq: fanSeq, parts: [PART] });
  fanSeq = seq;
}

// ---- the screen model's parse, bare and guarded ----
/** Coloured output the model parses per run, bytes: `ls --color` lines, a few sequences each; big enough that the write queue's own timer hops (one per 12 ms of parsing) are a small share. */
const MODEL_CHUNK_BYTES = 512 * 1024;
const modelChunk = ((): Uint8Array => {
  let s = '';
  for (let i = 0; s.length < MODEL_CHUNK_BYTES; i++) s += `\x1b[01;34mdir-${i}\x1b[0m  \x1b[01;32mrun-${i}.sh\x1b[0m  plain-file-${i}.txt  \x1b[38;5;208mnote\x1b[0m\r\n`;
  return new TextEncoder().encode(s.slice(0, MODEL_CHUNK_BYTES));
})();
const model = (guarded: boolean): InstanceType<typeof xtermHeadless.Terminal> => {
  const t = new xtermHeadless.Terminal({ cols: 120, rows: 40, scrollback: 2000, allowProposedApi: true, logLevel: 'off' });
  if (guarded && !guardHandlers(t, () => { throw new Error('the bench output made the model throw'); })) throw new Error('the guard found no handlers to wrap');
  return t;
};
const bareModel = model(false);
const guardedModel = model(true);
const parse = (t: InstanceType<typeof xtermHeadless.Terminal>) => (): Promise<void> => new Promise((r) => t.write(modelChunk, r));

// ---- the terminal feed's plain-text check ----
/** One PTY read of a flood, bytes: what the kernel hands node-pty at a time. */
const PTY_READ_BYTES = 4096;
const ptyRead = new TextEncoder().encode('lorem ipsum dolor sit amet 0123456789 '.repeat(PTY_READ_BYTES / 38 + 1).slice(0, PTY_READ_BYTES - 2) + '\r\n');
if (!plainNative) throw new Error('native/plaintext is not built: run the build first');
function plainByNative(): void { if (!plainNative!.isPlain(ptyRead)) throw new Error('the native check called plain text not plain'); }
function plainByJs(): void { if (!isPlain(ptyRead)) throw new Error('the JS check called plain text not plain'); }

// ---- the viewer door's check of one gesture ----
const MOVE = { t: 'input', ev: { type: 'mouse', action: 'move', x: 412.5, y: 230, modifiers: 0 } } as const;
function zodCheck(): void {
  if (checkedMessage('input', MOVE).ev.type !== 'mouse') throw new Error('the move was not read as a mouse event');
}
/** The hand-written check the schema replaced, as it was: the yardstick for the schema's cost. */
function handCheck(): void {
  const e = MOVE.ev as Record<string, unknown>;
  const num = (k: string): void => { if (typeof e[k] !== 'number' || !Number.isFinite(e[k])) throw new Error(`${k} must be a number`); };
  if (e.type !== 'mouse' || !['down', 'up', 'move'].includes(e.action as string)) throw new Error('a mouse action is down, up or move');
  num('x'); num('y');
}

const bench = new Bench({ time: TASK_TIME_MS, warmupTime: WARMUP_TIME_MS, throws: true });
bench
  .add('ring: claim, publish, free one slot', ringClaimPublish)
  .add(`bands: shrink a ${SCREEN_W}x${SCREEN_H} damage to ${CHANGED_ROWS} rows`, bandShrink)
  .add(`fanout: one patch to ${VIEWERS} viewers`, fanoutPatch)
  .add(`model: parse ${MODEL_CHUNK_BYTES / 1024} KB of coloured output, bare`, parse(bareModel))
  .add(`model: parse ${MODEL_CHUNK_BYTES / 1024} KB of coloured output, guarded`, parse(guardedModel))
  .add(`feed: is ${PTY_READ_BYTES / 1024} KB of a flood plain text, native/plaintext`, plainByNative)
  .add(`feed: is ${PTY_READ_BYTES / 1024} KB of a flood plain text, JS walk`, plainByJs)
  .add('door: check one mouse move, zod schema', zodCheck)
  .add('door: check one mouse move, hand-written (before)', handCheck);
await bench.run();

if (fanout.counters.viewerFrames !== fanout.counters.frames * VIEWERS) {
  throw new Error(`the fan-out sent ${fanout.counters.viewerFrames} viewer-frames for ${fanout.counters.frames} frames to ${VIEWERS} viewers`);
}
console.table(bench.table());
if (json) {
  const out: Record<string, { ops_per_s: number; mean_ns: number; p50_ns: number; samples: number }> = {};
  for (const t of bench.tasks) {
    const r = t.result;
    if (r.state !== 'completed') throw new Error(`${t.name} did not complete (${r.state})`);
    out[t.name] = {
      ops_per_s: Math.round(r.throughput.mean),
      mean_ns: Math.round(r.latency.mean * 1e6),
      p50_ns: Math.round(r.latency.p50 * 1e6),
      samples: r.latency.samplesCount,
    };
  }
  console.log(JSON.stringify(out));
}
