/**
 * Viewers of a seat terminal over the real socket: the repaint then live bytes, the keyboard
 * moving between clients, refused keystrokes, a flood interrupted by Ctrl-C, hand-offs.
 */
import { describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readFileSync } from 'node:fs';
import xtermHeadless from '@xterm/headless';
import type { RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';
import { TERM_STATE } from '../src/shared/terminal.js';

const SEAT = 'default/proj/lead';
const { Terminal } = xtermHeadless;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function attach(server: RunningServer, cols = 100, rows = 30): Promise<{ v: Viewer; term: number }> {
  const v = await Viewer.open(server.info);
  v.send({ t: 'term_attach', seat: SEAT, cols, rows });
  const view = await v.until(() => v.message('term_view'), 15_000, 'term_view');
  await v.until(() => v.frames.some((f) => f.flags & 1), 5000, 'the repaint');
  return { v, term: view.term as number };
}

function state(v: Viewer): Record<string, unknown> | undefined {
  return v.message('term_state');
}

const it = forgeTest();

describe('terminal viewers', () => {
  let server: RunningServer;
  let agent: Client;
  let a: Viewer;
  let b: Viewer;
  let term = 0;

  it.beforeAll(async ({ forge, agentFor }) => {
    server = forge;
    agent = (await agentFor(SEAT)).client;
    await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo ready' } });
    ({ v: a, term } = await attach(server));
    ({ v: b } = await attach(server));
  });
  it.afterAll(() => {
    a?.close();
    b?.close();
  });

  it('viewers fed only their repaint and the live frames after it draw what the server\'s screen holds', async () => {
    const lates = await Promise.all([0, 1, 2].map(() => Viewer.open(server.info)));
    // Attach at three moments in the middle of output: each repaint and the live bytes after it
    // must join with no gap and no duplicate, while frames already leave before the model parsed them.
    const run = agent.callTool({ name: 'terminal__run', arguments: { command: 'for i in $(seq 1 6000); do echo "row $i 漢字"; done' } });
    for (const [i, late] of lates.entries()) {
      await new Promise((r) => setTimeout(r, 60 + i * 90));
      late.send({ t: 'term_attach', seat: SEAT, cols: 100, rows: 30 });
    }
    await run;
    const read = await agent.callTool({ name: 'terminal__read', arguments: {} });
    for (const late of lates) {
      await late.until(() => late.text().includes('row 6000'), 15_000, 'the last row');
      await new Promise((r) => setTimeout(r, 300));
      const model = new Terminal({ cols: 100, rows: 30, allowProposedApi: true });
      await new Promise<void>((r) => model.write(late.text(), r));
      const lines: string[] = [];
      for (let y = 0; y < 30; y++) lines.push(model.buffer.active.getLine(model.buffer.active.baseY + y)!.translateToString(true));
      while (lines.length && lines[lines.length - 1] === '') lines.pop();
      expect(lines.join('\n')).toBe((read.structuredContent as { text: string }).text);
      const seqs = late.frames.map((f) => f.seq);
      const keyframe = late.frames.findIndex((f) => f.flags & 1);
      for (let i = keyframe + 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1] + 1);
      model.dispose();
      late.close();
    }
  });

  it('a slow watcher is dropped to a fresh repaint instead of queueing output', async () => {
    const slow = await Viewer.open(server.info);
    slow.ackBytes = false;
    slow.send({ t: 'term_attach', seat: SEAT, cols: 100, rows: 30 });
    await slow.until(() => slow.frames.some((f) => f.flags & 1), 10_000, 'the repaint');
    const keyframes = (): number => slow.frames.filter((f) => f.flags & 1).length;
    const received = (): number => slow.frames.reduce((n, f) => n + f.bytes.byteLength, 0);
    await agent.callTool({ name: 'terminal__run', arguments: { command: 'seq 1 600000' } });
    await new Promise((r) => setTimeout(r, 300));
    const got = received();
    // seq wrote ~4.5 MB; the watcher was cut off near its 2 MiB bound rather than sent all of it.
    expect(got).toBeLessThan(3 * 1024 * 1024);
    const before = keyframes();
    slow.send({ t: 'term_ack', term, bytes: got });
    await slow.until(() => keyframes() > before, 10_000, 'a fresh repaint');
    await slow.until(() => slow.text().includes('600000'), 10_000, 'the end of the output in the repaint');
    slow.close();
  });

  it('a watcher\'s keystroke is refused by the server and never reaches the shell', async () => {
    const before = a.messages.length;
    a.send({ t: 'term_input', term, data: 'echo from-a-watcher\r' });
    const err = await a.until(() => a.messages.slice(before).find((m) => m.t === 'error'), 5000, 'the refusal');
    expect(err.message).toMatch(/view only: take control to type/);
    await new Promise((r) => setTimeout(r, 300));
    const read = await agent.callTool({ name: 'terminal__read', arguments: {} });
    expect((read.structuredContent as { text: string }).text).not.toContain('from-a-watcher');
  });

  it('the keyboard moves between clients and both are told', async () => {
    a.send({ t: 'term_control', term, take: true });
    await a.until(() => state(a)?.state === TERM_STATE.youHaveControl, 5000, 'a to hold');
    const bBefore = b.messages.length;
    await b.until(() => b.messages.slice(0).some((m) => m.t === 'term_state' && m.state === TERM_STATE.otherHasKeyboard), 5000, 'b told a holds');
    b.send({ t: 'term_control', term, take: true });
    await b.until(() => b.messages.slice(bBefore).some((m) => m.t === 'term_state' && m.state === TERM_STATE.youHaveControl), 5000, 'b to hold');
    const lost = await a.until(() => a.messages.find((m) => m.t === 'term_state' && m.notice === TERM_STATE.otherHasKeyboard), 5000, 'a told it lost');
    expect(lost.role).toBe('watcher');
    expect(state(a)?.state).toBe(TERM_STATE.otherHasKeyboard);
  });

  it('the agent\'s calls are refused while a person holds the keyboard, reading and waiting included', async () => {
    for (const [name, args] of [
      ['terminal__write', { text: 'echo agent' }],
      ['terminal__run', { command: 'echo agent' }],
      ['terminal__read', {}],
      ['terminal__wait', { until: 'done', timeout_ms: 1000 }],
    ] as const) {
      const res = await agent.callTool({ name, arguments: args });
      expect(res.isError, name).toBe(true);
      expect(JSON.stringify(res.content), name).toMatch(/your person has the keyboard/);
    }
  });

  it('typing from the holder reaches the shell', async () => {
    b.send({ t: 'term_input', term, data: 'echo typed-by-b\r' });
    await b.until(() => b.text().includes('typed-by-b\r\n'), 5000, 'the echo');
  });

  it('a flood from the holder is held at a bounded backlog and Ctrl-C from the holder interrupts it', async () => {
    const rssBefore = rssMb(server.info.pid);
    b.ackBytes = false; // b's socket is "behind": nothing it received is acknowledged
    const bytesAt = (): number => b.frames.reduce((n, f) => n + f.bytes.byteLength, 0);
    const start = bytesAt();
    b.send({ t: 'term_input', term, data: 'yes\r' });
    await new Promise((r) => setTimeout(r, 2000));
    const held = bytesAt() - start;
    // Paused at the holder's bound (512 KiB) plus what was in flight, not seconds of `yes`.
    expect(held).toBeLessThan(2 * 1024 * 1024);
    const sentAt = Date.now();
    b.send({ t: 'term_input', term, data: '\x03' });
    b.ackBytes = true;
    b.send({ t: 'term_ack', term, bytes: held });
    // The prompt is back: the shell's done mark reaches the holder after the interrupt.
    const marksBefore = b.text().split('\x1b]133;D').length;
    await b.until(() => b.text().split('\x1b]133;D').length > marksBefore, 10_000, 'the prompt back after Ctrl-C');
    console.log(`flood: ${held} bytes held while behind; prompt back ${Date.now() - sentAt} ms after Ctrl-C; rss ${rssBefore.toFixed(0)} → ${rssMb(server.info.pid).toFixed(0)} MB`);
    expect(rssMb(server.info.pid) - rssBefore).toBeLessThan(150);
  });

  it('a password prompt is read from termios and said in the state', async () => {
    b.send({ t: 'term_input', term, data: "read -s -p 'Password: ' secret\r" });
    await b.until(() => state(b)?.password === true, 5000, 'the password state');
    expect(state(a)?.password).toBe(true);
    b.send({ t: 'term_input', term, data: 'hunter2\r' });
    await b.until(() => state(b)?.password === false, 5000, 'echo back on');
  });

  it('a hand-off parks the ask, reports progress, and the person\'s Done returns the keyboard to the agent', async () => {
    const progress: string[] = [];
    const call = agent.callTool({ name: 'terminal_hand_off', arguments: { reason: 'type the sudo password' } }, undefined, {
      onprogress: (p) => { progress.push(String(p.message)); }, timeout: 60_000, resetTimeoutOnProgress: true,
    });
    const card = await a.until(() => a.messages.find((m) => m.t === 'term_state' && (m.handOff as { reason?: string } | null)?.reason === 'type the sudo password'), 5000, 'the card');
    expect(card.state).toBe(TERM_STATE.waitingForYou);
    const refused = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo no' } });
    expect(JSON.stringify(refused.content)).toMatch(/handed off to your person/);
    // The hand-off hands the agent its ending, not the screen.
    const unread = await agent.callTool({ name: 'terminal__read', arguments: {} });
    expect(JSON.stringify(unread.content)).toMatch(/handed off to your person/);
    await new Promise((r) => setTimeout(r, 5600));
    b.send({ t: 'term_answer', term, answer: 'done' });
    const res = await call;
    expect(JSON.stringify(res.content)).toMatch(/answered Done/);
    expect(progress.length).toBeGreaterThan(0);
    await b.until(() => b.messages.find((m) => m.t === 'term_state' && m.notice === TERM_STATE.agentTookKeyboard), 5000, 'b told the agent took it');
    const ok = await agent.callTool({ name: 'terminal__run', arguments: { command: 'echo back' } });
    expect((ok.structuredContent as { output: string }).output).toBe('back');
  });

  it('closing the terminal tells its viewers', async () => {
    await agent.callTool({ name: 'terminal__close', arguments: {} });
    const closed = await a.until(() => a.message('term_closed'), 5000, 'term_closed');
    expect(closed.message).toMatch(/closed by the agent/);
  });
});
