/**
 * Terminal throughput and latency, side by side in one run:
 *  - `cat` of a 100 MB file through a bare node-pty pipe (what a user would pick instead);
 *  - the same file through forge: PTY → screen model → kind-4 frames → 1 and 10 viewer sockets;
 *  - keystroke-to-echo latency for the keyboard holder, socket to socket;
 *  - the server's RSS before and at its peak during the floods, and CPU per MB (the server's
 *    threads, and the bench's own viewers, which share the machine's cores with it);
 *  - Ctrl-C from the keyboard holder during a `yes` flood, to the prompt's done mark (goal ≤ 200 ms).
 * Usage: ./forge bench terminal [--json] [--mb N] [--runs N]. The last line is one JSON object;
 * the run is kept under bench/results/ for `./forge bench report`.
 * SERVER_NODE_FLAGS (say `--cpu-prof --cpu-prof-dir=DIR`) is passed to the server's node.
 * Goals (issue 16): 10 viewers at ≥ 0.8x the bare pipe; ≤ 10 ms of server CPU per MB; echo p50 ≤ 1 ms;
 * peak RSS at most 120 MB over the start.
 * The floor under the CPU figures is measured in the same run: the bench's own CPU while it reads the
 * bare pipe. A PTY hands its reader ~4 KB a read however long the reader waits, so a MB is ~250
 * reads, each a system call and a callback; the per-thread lines say which of the server's threads
 * (named forge-pty, forge-relay…; V8's helpers are "node") spends the rest.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, existsSync, rmSync, openSync, writeSync, closeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import nodePty from 'node-pty';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeServerMessage, encodeControl, FRAME_KIND_TERMINAL } from '../src/shared/protocol.js';
import { readTermHeader } from '../src/shared/terminal.js';
import { saveRun } from './harness.js';

const { values } = parseArgs({ options: { json: { type: 'boolean' }, mb: { type: 'string' }, runs: { type: 'string' } } });
const FILE_MB = Number(values.mb ?? 100);
/** Rounds of (bare, 1 viewer, 10 viewers); 3 by default for a median that a busy machine moves less. */
const RUNS = Number(values.runs ?? 3);
const ECHO_SAMPLES = 200;
/** `yes` floods interrupted with Ctrl-C by the keyboard holder. */
const CTRL_C_SAMPLES = 5;
const COLS = 120;
const ROWS = 40;
const SEAT = 'default/bench/lead';
const DONE_MARK = Buffer.from('\x1b]133;D');

const say = (s: string): void => { if (!values.json) process.stdout.write(s + '\n'); else process.stderr.write(s + '\n'); };
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const pct = (xs: number[], p: number): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

function makeFile(dir: string): string {
  const file = join(dir, 'flood.txt');
  const line = (i: number): string => `${String(i).padStart(9, '0')} the quick brown fox jumps over the lazy dog ${'abcdefghijklmnopqrstuvwxyz0123456789'.slice(i % 30)}\n`;
  let block = '';
  for (let i = 0; block.length < 1024 * 1024; i++) block += line(i);
  const fd = openSync(file, 'w');
  const buf = Buffer.from(block.slice(0, 1024 * 1024));
  for (let i = 0; i < FILE_MB; i++) writeSync(fd, buf);
  closeSync(fd);
  return file;
}

/** CPU of this process reading the bare pipe, ms per MB: what reading a PTY costs at all (node-pty's reads, ~4 KB each). */
const bareCpu: number[] = [];

async function barePipe(file: string): Promise<number> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const p = nodePty.spawn('/bin/cat', [file], { name: 'xterm-256color', cols: COLS, rows: ROWS, cwd: tmpdir(), env: process.env as Record<string, string>, encoding: null });
  let bytes = 0;
  p.onData((d) => { bytes += (d as unknown as Buffer).length; });
  await new Promise<void>((r) => p.onExit(() => r()));
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  bareCpu.push((cpu.user + cpu.system) / 1000 / FILE_MB);
  if (bytes < FILE_MB * 1024 * 1024) throw new Error(`the bare pipe delivered only ${bytes} bytes`);
  return FILE_MB / s;
}

class BenchViewer {
  term = 0;
  bytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private onDone: (() => void) | null = null;
  /** When the last repaint arrived: a watcher dropped for being slow catches up through one. */
  lastKeyframeAt = 0;
  repaints = 0;
  /** Output frames received: with `bytes`, the size the server's gathering gives its frames. */
  frames = 0;
  private echo: ((s: string) => void) | null = null;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      if (data[0] === FRAME_KIND_TERMINAL) {
        const h = readTermHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
        const payload = data.subarray(h.hdrlen);
        this.bytes += payload.length;
        this.frames++;
        if (h.flags & 1) { this.lastKeyframeAt = performance.now(); this.repaints++; }
        this.send({ t: 'term_ack', term: h.id, bytes: payload.length });
        if (this.echo) this.echo(payload.toString('latin1'));
        if (this.onDone) {
          if (payload.includes(DONE_MARK) || Buffer.concat([this.tail, payload.subarray(0, 16)]).includes(DONE_MARK)) {
            const d = this.onDone;
            this.onDone = null;
            d();
          }
          this.tail = payload.subarray(Math.max(0, payload.length - 16));
        }
        return;
      }
      const m = decodeServerMessage(new Uint8Array(data));
      if (m?.t === 'term_view') this.term = m.term;
    });
  }

  static async open(port: number, token: string): Promise<BenchViewer> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
    await new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); });
    const v = new BenchViewer(ws);
    v.send({ t: 'term_attach', seat: SEAT, cols: COLS, rows: ROWS });
    while (!v.term) await new Promise((r) => setTimeout(r, 20));
    return v;
  }

  send(m: Record<string, unknown>): void { this.ws.send(encodeControl(m as never)); }
  nextDone(): Promise<void> { this.tail = Buffer.alloc(0); return new Promise((r) => { this.onDone = r; }); }
  waitEcho(ch: string): Promise<void> {
    return new Promise((r) => { this.echo = (s) => { if (s.includes(ch)) { this.echo = null; r(); } }; });
  }
}

/** A /proc stat line's name and CPU time so far (user, system), ms; undefined once its process or thread is gone. */
function statCpu(path: string): { name: string; user: number; sys: number } | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in 100 Hz ticks.
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), user: Number(f[11]) * 10, sys: Number(f[12]) * 10 };
  } catch { return undefined; }
}

/** CPU time a process has used so far (all its threads, user and system), ms. */
function cpuMs(pid: number): number {
  const c = statCpu(`/proc/${pid}/stat`);
  return c ? c.user + c.sys : 0;
}

/** CPU time per thread of a process so far, ms (user, system), keyed `name#tid`. */
function threadCpuMs(pid: number): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const c = statCpu(`/proc/${pid}/task/${tid}/stat`);
      if (c) out.set(`${c.name}#${tid}`, [c.user, c.sys]);
    }
  } catch { /* the process ended */ }
  return out;
}

function rssMb(pid: number): number {
  try { return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024; } catch { return 0; }
}

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0];
  const dir = mkdtempSync(join(tmpdir(), 'forge-bench-term-'));
  const stateDir = join(dir, 'state');
  // A plain bash with no user rc files: the bench measures forge, not someone's prompt.
  writeFileSync(join(dir, 'forge.toml'), '[terminal]\nshell = "/bin/bash"\n');
  const file = makeFile(dir);
  say(`file: ${FILE_MB} MB`);
  const server = spawn(process.execPath, [...(process.env.SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean), 'dist/src/main/cli.js', 'serve', '--state', stateDir, '--port', '0', '--config', join(dir, 'forge.toml')], {
    stdio: 'ignore', env: { ...process.env, FORGE_LOG_LEVEL: 'warn', HOME: dir },
  });
  try {
    while (!existsSync(join(stateDir, 'server.json'))) {
      if (server.exitCode !== null) throw new Error('forge did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const info = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as { port: number; token: string; viewer_token: string; mcp_url: string; pid: number };
    const agent = new Client({ name: 'forge-bench', version: '0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${info.mcp_url}?seat=${SEAT}`), { requestInit: { headers: { Authorization: `Bearer ${info.token}` } } }));
    await agent.callTool({ name: 'terminal__run', arguments: { command: 'true' } });
    const rssBefore = rssMb(info.pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, rssMb(info.pid)); }, 100);

    const viewers: BenchViewer[] = [await BenchViewer.open(info.port, info.viewer_token)];
    /** Per flood: the server's CPU (every thread) and this process's (the viewers), ms per MB. */
    const serverCpu: number[][] = [[], []];
    const viewerCpu: number[][] = [[], []];
    /** Per 10-viewer flood: repaints for watchers dropped for falling behind (the bench's own process descheduled, mostly). */
    const repaints10: number[] = [];
    const flood = async (): Promise<number> => {
      const cpu0 = cpuMs(info.pid);
      const threads0 = threadCpuMs(info.pid);
      const own0 = process.cpuUsage();
      const seen = viewers.map(() => false);
      viewers.forEach((v, i) => void v.nextDone().then(() => { seen[i] = true; }));
      const repaintsBefore = viewers.reduce((n, v) => n + v.repaints, 0);
      const framesBefore = viewers[0]!.frames;
      const bytesBefore = viewers[0]!.bytes;
      const t0 = performance.now();
      await agent.callTool({ name: 'terminal__run', arguments: { command: `cat ${file}`, timeout_ms: 600_000 } }, undefined, { timeout: 600_000 });
      const ranAt = performance.now();
      // A viewer dropped for being slow may have been repainted past the done mark before the call's
      // answer got here: it asks for the screen again, as a client that lost its place does.
      viewers.forEach((v, i) => { if (!seen[i] && v.lastKeyframeAt < ranAt) v.send({ t: 'term_repaint', term: v.term }); });
      // Every viewer has drawn the end: it saw the done mark, or (dropped for being slow) a repaint since.
      while (!viewers.every((v, i) => seen[i] || v.lastKeyframeAt >= ranAt)) await new Promise((r) => setTimeout(r, 5));
      const dropped = viewers.reduce((n, v) => n + v.repaints, 0) - repaintsBefore;
      if (dropped) say(`  (${dropped} repaints for viewers that fell behind)`);
      if (viewers.length > 1) repaints10.push(dropped);
      const own = process.cpuUsage(own0);
      const k = viewers.length > 1 ? 1 : 0;
      serverCpu[k].push((cpuMs(info.pid) - cpu0) / FILE_MB);
      viewerCpu[k].push((own.user + own.system) / 1000 / FILE_MB);
      // The server's threads by name (the workers name theirs; V8's helpers are "node"), user+system ms per MB.
      const perThread = [...threadCpuMs(info.pid)].map(([t, [u, sy]]) => {
        const [u0, s0] = threads0.get(t) ?? [0, 0];
        return { t, user: (u - u0) / FILE_MB, sys: (sy - s0) / FILE_MB };
      }).filter((x) => x.user + x.sys > 0.05).sort((a, b) => b.user + b.sys - a.user - a.sys);
      say(`  server CPU per MB by thread (user+system): ${perThread.map((x) => `${x.t} ${round(x.user)}+${round(x.sys)}`).join(', ')}`);
      say(`  CPU per MB: server ${round(serverCpu[k].at(-1)!)} ms, the bench's viewers ${round(viewerCpu[k].at(-1)!)} ms; ${round((viewers[0]!.bytes - bytesBefore) / 1024 / Math.max(1, viewers[0]!.frames - framesBefore))} KB per frame`);
      return FILE_MB / ((performance.now() - t0) / 1000);
    };
    const bare: number[] = [];
    const one: number[] = [];
    const ten: number[] = [];
    // Interleaved rounds, so a busy machine weighs on all three alike; medians are reported.
    const extra: BenchViewer[] = [];
    for (let i = 0; i < RUNS; i++) {
      bare.push(await barePipe(file));
      say(`bare pipe: ${round(bare[i])} MB/s, reading it ${round(bareCpu.at(-1)!)} ms CPU per MB`);
      one.push(await flood());
      say(`forge, 1 viewer: ${round(one[i])} MB/s`);
      while (extra.length < 9) { const v = await BenchViewer.open(info.port, info.viewer_token); extra.push(v); viewers.push(v); }
      ten.push(await flood());
      say(`forge, 10 viewers: ${round(ten[i])} MB/s`);
      for (const v of extra.splice(0)) { v.ws.close(); viewers.splice(viewers.indexOf(v), 1); }
      await new Promise((r) => setTimeout(r, 200));
    }
    clearInterval(sampler);

    // Keystroke to echo for the keyboard holder: one character at a time at a readline prompt.
    const holder = viewers[0];
    holder.send({ t: 'term_control', term: holder.term, take: true });
    await new Promise((r) => setTimeout(r, 300));
    const echo: number[] = [];
    const alphabet = 'abcdefghijklmnopqrstuvwxyz';
    for (let i = 0; i < ECHO_SAMPLES; i++) {
      const ch = alphabet[i % alphabet.length];
      const seen = holder.waitEcho(ch);
      const t0 = performance.now();
      holder.send({ t: 'term_input', term: holder.term, data: ch });
      await seen;
      echo.push(performance.now() - t0);
      if (i % alphabet.length === alphabet.length - 1) {
        holder.send({ t: 'term_input', term: holder.term, data: '\x15' }); // Ctrl-U clears the line
        await new Promise((r) => setTimeout(r, 30));
      }
    }
    holder.send({ t: 'term_input', term: holder.term, data: '\x15' });

    // Ctrl-C from the holder during a flood: from the keystroke to the prompt's done mark at the holder.
    const ctrlC: number[] = [];
    for (let i = 0; i < CTRL_C_SAMPLES; i++) {
      holder.send({ t: 'term_input', term: holder.term, data: 'yes\r' });
      await new Promise((r) => setTimeout(r, 500));
      const done = holder.nextDone();
      const t0 = performance.now();
      holder.send({ t: 'term_input', term: holder.term, data: '\x03' });
      await done;
      ctrlC.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const v of viewers) v.ws.close();
    await agent.close();

    const result = {
      mb_per_s_1_viewer: round(median(one)),
      mb_per_s_10_viewers: round(median(ten)),
      bare_pipe_mb_per_s: round(median(bare)),
      echo_ms_p50: round(pct(echo, 0.5)),
      echo_ms_p95: round(pct(echo, 0.95)),
      rss_mb_before: round(rssBefore, 1),
      rss_mb_peak: round(rssPeak, 1),
      server_cpu_ms_per_mb_1_viewer: round(median(serverCpu[0])),
      server_cpu_ms_per_mb_10_viewers: round(median(serverCpu[1])),
      /** What reading the same file from a bare PTY costs one node process, ms per MB: the floor under the server's figures. */
      bare_pipe_read_cpu_ms_per_mb: round(median(bareCpu)),
      /** The server's CPU per MB with 10 viewers over the bare read's, medians of the same run: what forge adds to reading the PTY at all. */
      server_cpu_vs_bare_read_10_viewers: round(median(serverCpu[1]) / median(bareCpu)),
      viewers_cpu_ms_per_mb_10_viewers: round(median(viewerCpu[1])),
      repaints_10_viewers: median(repaints10),
      ctrl_c_ms_p50: round(median(ctrlC)),
      ctrl_c_ms_max: round(Math.max(...ctrlC)),
      /** The machine's 1-minute load at the start and the end: a shared machine moves every number. */
      load_avg_1m: [round(loadAtStart), round(loadavg()[0])],
    };
    if (!values.json) {
      console.table(result);
      say(`10 viewers / bare pipe: ${round(result.mb_per_s_10_viewers / result.bare_pipe_mb_per_s)}x (goal ≥ 0.8x); echo p50 ${result.echo_ms_p50} ms (goal ≤ 1 ms)`);
    }
    saveRun('terminal', result);
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => (server.exitCode !== null ? r(null) : server.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench terminal: ${(e as Error).message}\n`);
  process.exit(1);
});
