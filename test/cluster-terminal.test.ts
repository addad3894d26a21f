/**
 * A terminal on node alpha, typed into and watched from the other nodes: the keyboard holder on
 * gamma gets every byte of a flood in order and, while it stops acknowledging, holds the shell;
 * a watcher on beta that never acknowledges is dropped near its bound and repainted to the same
 * screen once it catches up. The acks cross the hop back to alpha, where the flow is decided.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';
import { Viewer } from './helpers/term-viewer.js';

const SEAT = 'default/proj/lead';
const COLS = 100;
const ROWS = 30;
/** The flood's last line: far more output than the watcher's bound (2 MiB). */
const LAST = 600_000;
/** The prompt's done mark (OSC 133 D): the command ended and the prompt is back. */
const DONE_MARK = '\x1b]133;D';
const { Terminal } = xtermHeadless;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function attach(server: RunningServer, ackBytes: boolean): Promise<Viewer> {
  const v = await Viewer.open(server.info);
  v.ackBytes = ackBytes;
  v.send({ t: 'term_attach', seat: SEAT, cols: COLS, rows: ROWS });
  await v.until(() => v.frames.some((f) => f.flags & 1), 15_000, 'the repaint over the hop');
  return v;
}

/** The screen a client draws from what `v` received since its last repaint. */
async function drawn(v: Viewer): Promise<string> {
  const model = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  await new Promise<void>((r) => model.write(v.text(), r));
  const lines: string[] = [];
  for (let y = 0; y < ROWS; y++) lines.push(model.buffer.active.getLine(model.buffer.active.baseY + y)!.translateToString(true));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  model.dispose();
  return lines.join('\n');
}

describe('a terminal on one node, typed into and watched from others', () => {
  let cluster: TestCluster<'alpha' | 'beta' | 'gamma'>;
  let alpha: RunningServer;
  let beta: RunningServer;
  let gamma: RunningServer;
  let pages: PageServer;
  let agent: Agent;
  let holder: Viewer;
  let watcher: Viewer;

  beforeAll(async () => {
    pages = await servePages({ '/': '<title>Here</title>' });
    cluster = await startCluster(['alpha', 'beta', 'gamma']);
    ({ alpha, beta, gamma } = cluster.nodes);
    agent = await connectAgent(alpha, SEAT);
    // The agent's browser places the profile on alpha: the org's viewers on every node are served there.
    expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
    expect((await agent.call('terminal__run', { command: 'echo ready' })).isError).toBe(false);
    holder = await attach(gamma, true);
    watcher = await attach(beta, false);
  });

  afterAll(async () => {
    holder?.close();
    watcher?.close();
    await agent?.close();
    await cluster?.stop();
    await pages?.close();
  });

  it('a key typed on gamma reaches alpha\'s shell and its echo comes back', async () => {
    const term = holder.frames[0]!.id;
    holder.send({ t: 'term_control', term, take: true });
    await holder.until(() => holder.message('term_state')?.role === 'holder', 10_000, 'gamma\'s viewer to hold the keyboard');
    holder.send({ t: 'term_input', term, data: 'echo from-$((6*7))-gamma\r' });
    await holder.until(() => holder.text().includes('from-42-gamma'), 10_000, 'the echo on gamma');
  });

  it('the holder on gamma gets the whole flood in order, and holds the shell while it does not acknowledge', async () => {
    const term = holder.frames[0]!.id;
    const from = holder.frames.length;
    holder.ackBytes = false;
    holder.send({ t: 'term_input', term, data: `seq 1 ${LAST}\r` });
    // Unacknowledged, the holder's backlog reaches its bound and the shell is held: the output stops short.
    const received = (): number => holder.frames.slice(from).reduce((n, f) => n + f.bytes.byteLength, 0);
    await holder.until(() => received() > 256 * 1024, 20_000, 'the flood to start');
    await sleep(1_500);
    const still = received();
    await sleep(1_500);
    expect(received()).toBe(still);
    expect(holder.text()).not.toContain(`\n${LAST}\r\n`);
    // Acknowledged again: the rest comes, every line once and in order.
    holder.ackBytes = true;
    holder.send({ t: 'term_ack', term, bytes: received() });
    const marks = (): number => holder.frames.slice(from).map((f) => Buffer.from(f.bytes).toString('utf8')).join('').split(DONE_MARK).length;
    await holder.until(() => holder.text().includes(`\n${LAST}\r\n`) && marks() > 1, 60_000, 'the end of the flood on gamma');
    const out = holder.frames.slice(from).map((f) => Buffer.from(f.bytes).toString('utf8')).join('');
    // Every line once and in order (the first shares its line with the prompt's marks).
    const numbers = out.split('\r\n').filter((l) => /^\d+$/.test(l)).map(Number);
    expect(numbers.length).toBe(LAST - 1);
    expect(numbers.every((n, i) => n === i + 2)).toBe(true);
    expect(holder.frames.slice(from).some((f) => f.flags & 1)).toBe(false);
  });

  it('the watcher on beta that never acknowledged was dropped, and once it catches up is repainted to the holder\'s screen', async () => {
    const term = watcher.frames[0]!.id;
    const keyframes = (): number => watcher.frames.filter((f) => f.flags & 1).length;
    const before = keyframes();
    const got = watcher.frames.reduce((n, f) => n + f.bytes.byteLength, 0);
    // It got about its bound, not the flood.
    expect(got).toBeLessThan(4 * 1024 * 1024);
    watcher.ackBytes = true;
    watcher.send({ t: 'term_ack', term, bytes: got });
    await watcher.until(() => keyframes() > before, 15_000, 'the repaint of the watcher on beta');
    const deadline = Date.now() + 15_000;
    while ((await drawn(watcher)) !== (await drawn(holder)) && Date.now() < deadline) await sleep(200);
    expect(await drawn(watcher)).toBe(await drawn(holder));
  });
});
