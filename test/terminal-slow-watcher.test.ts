/**
 * A slow watcher of a flooding shell costs the keyboard holder nothing: the holder gets every
 * frame of the flood in order and draws the server's screen, while the slow watcher is dropped
 * near its bound and, once it has caught up, is repainted to that same screen.
 */
import { describe, expect } from 'vitest';
import xtermHeadless from '@xterm/headless';
import type { Agent, RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';

const SEAT = 'default/proj/lead';
const COLS = 100;
const ROWS = 30;
const LAST = 600_000;
const { Terminal } = xtermHeadless;
/** The prompt's done mark (OSC 133 D): the command ended and the prompt is back. */
const DONE_MARK = '\x1b]133;D';

async function attach(server: RunningServer, ackBytes: boolean): Promise<Viewer> {
  const v = await Viewer.open(server.info);
  v.ackBytes = ackBytes;
  v.send({ t: 'term_attach', seat: SEAT, cols: COLS, rows: ROWS });
  await v.until(() => v.frames.some((f) => f.flags & 1), 15_000, 'the repaint');
  return v;
}

/** The screen a client draws from what `v` received since its last repaint, as terminal__read gives it. */
async function drawn(v: Viewer): Promise<string> {
  const model = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  await new Promise<void>((r) => model.write(v.text(), r));
  const lines: string[] = [];
  for (let y = 0; y < ROWS; y++) lines.push(model.buffer.active.getLine(model.buffer.active.baseY + y)!.translateToString(true));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  model.dispose();
  return lines.join('\n');
}

const it = forgeTest();

describe('a slow watcher beside a fast one', () => {
  let agent: Agent;
  let fast: Viewer;
  let slow: Viewer;

  it.beforeAll(async ({ forge, agentFor }) => {
    agent = await agentFor(SEAT);
    await agent.call('terminal__run', { command: 'echo ready' });
    fast = await attach(forge, true);
    slow = await attach(forge, false);
  });
  it.afterAll(() => {
    fast?.close();
    slow?.close();
  });

  it('the holder gets the whole flood in order while the slow watcher is dropped, and the slow one is repainted to the same screen once it catches up', async () => {
    const term = fast.frames[0]!.id;
    fast.send({ t: 'term_control', term, take: true });
    await fast.until(() => fast.message('term_state')?.role === 'holder', 5000, 'the fast viewer to hold the keyboard');
    const fastFrom = fast.frames.length;
    const slowKeyframes = (): number => slow.frames.filter((f) => f.flags & 1).length;
    const received = (v: Viewer): number => v.frames.reduce((n, f) => n + f.bytes.byteLength, 0);
    const marks = (): number => fast.text().split(DONE_MARK).length;
    const marksBefore = marks();
    fast.send({ t: 'term_input', term, data: `seq 1 ${LAST}\r` });
    await fast.until(() => fast.text().includes(`\n${LAST}\r\n`) && marks() > marksBefore, 30_000, 'the end of the flood and the prompt at the holder');
    fast.send({ t: 'term_control', term, take: false });
    await fast.until(() => fast.message('term_state')?.role === 'watcher', 5000, 'the keyboard back with the agent');
    await new Promise((r) => setTimeout(r, 300));
    const screen = (await agent.call('terminal__read', {})).structured as { text: string };

    // Every frame, no gap and no repaint: the slow watcher never held the holder back.
    const flood = fast.frames.slice(fastFrom);
    expect(flood.filter((f) => f.flags & 1)).toHaveLength(0);
    for (let i = 1; i < flood.length; i++) expect(flood[i]!.seq).toBe(flood[i - 1]!.seq + 1);
    expect(await drawn(fast)).toBe(screen.text);

    // seq wrote ~4.5 MB; the slow watcher was cut off near its 2 MiB bound rather than sent all of it.
    const got = received(slow);
    expect(got).toBeLessThan(3 * 1024 * 1024);
    const before = slowKeyframes();
    slow.send({ t: 'term_ack', term, bytes: got });
    await slow.until(() => slowKeyframes() > before, 10_000, 'a fresh repaint for the slow watcher');
    expect(await drawn(slow)).toBe(screen.text);
  });
});
