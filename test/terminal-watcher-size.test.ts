/**
 * While a person holds the keyboard, the terminal keeps the holder's size: a watcher whose window
 * changes size is answered with a repaint at the terminal's own grid, so its screen never draws the
 * shell's output at a width the shell is not writing for.
 */
import { describe, expect } from 'vitest';
import type { RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';
import { TERM_STATE } from '../src/shared/terminal.js';

const SEAT = 'default/proj/lead';

let server: RunningServer;
const viewers: Viewer[] = [];

async function attach(cols: number, rows: number): Promise<{ v: Viewer; term: number }> {
  const v = await Viewer.open(server.info);
  viewers.push(v);
  v.send({ t: 'term_attach', seat: SEAT, cols, rows });
  const view = await v.until(() => v.message('term_view'), 15_000, 'term_view');
  await v.until(() => v.frames.some((f) => f.flags & 1), 5000, 'the repaint');
  return { v, term: view.term as number };
}

const it = forgeTest();

it.beforeAll(async ({ forge, agentFor }) => {
  server = forge;
  await (await agentFor(SEAT)).call('terminal__run', { command: 'echo ready' });
});
it.afterAll(() => {
  for (const v of viewers) v.close();
});

describe('a watcher\'s size while someone holds the keyboard', () => {
  it('a watcher that resizes is repainted at the holder\'s grid, and the shell keeps the holder\'s size', async () => {
    const { v: holder, term } = await attach(100, 30);
    holder.send({ t: 'term_control', term, take: true });
    await holder.until(() => holder.message('term_state')?.state === TERM_STATE.youHaveControl, 5000, 'the holder');
    const { v: watcher } = await attach(60, 20);
    // Attached while the holder types: its repaint comes at the holder's grid.
    expect(watcher.message('term_view')).toMatchObject({ cols: 100, rows: 30 });

    const views = watcher.messages.filter((m) => m.t === 'term_view').length;
    const keyframes = watcher.frames.filter((f) => f.flags & 1).length;
    watcher.send({ t: 'term_resize', term, cols: 70, rows: 25 });
    await watcher.until(() => watcher.messages.filter((m) => m.t === 'term_view').length > views, 5000, 'a fresh view');
    expect(watcher.message('term_view')).toMatchObject({ cols: 100, rows: 30 });
    await watcher.until(() => watcher.frames.filter((f) => f.flags & 1).length > keyframes, 5000, 'a fresh repaint');

    // The shell's own word on its size, asked by the holder.
    holder.send({ t: 'term_input', term, data: 'stty size\r' });
    await holder.until(() => /\b30 100\r\n/.test(holder.text()), 5000, 'the shell\'s size: 30 rows of 100');
  });
});
