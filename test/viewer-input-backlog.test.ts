/**
 * A page slower than the person's hand never builds a backlog of the controller's gestures: moves
 * that are still waiting give way to the newest one, wheels that are still waiting add up their
 * distance, and a press sent after them still lands after them, at its own point. Against a real
 * page that spends 40 ms on every mouse move, over a real socket.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

/** What the slow page spends on each mouse move, ms: slower than a 60 Hz hand. */
const MOVE_COST_MS = 40;
const MOVES = 200;

const page = `<title>Slow</title><style>body{margin:0;height:5000px}</style>
<script>
  window.moves = 0; window.last = null; window.downAt = null; window.movesBeforeDown = -1;
  addEventListener('mousemove', (e) => { const t = performance.now(); while (performance.now() - t < ${MOVE_COST_MS}); window.moves++; window.last = [e.clientX, e.clientY]; });
  addEventListener('mousedown', (e) => { window.downAt = [e.clientX, e.clientY]; window.movesBeforeDown = window.moves; window.lastBeforeDown = window.last; });
</script>`;

let agent: Agent;
/** The controller, attached and holding control for both tests. */
let v: TestViewer;

const it = forgeTest({}, { '/': page });

it.beforeAll(async ({ forge, pages, agentFor }) => {
  agent = await agentFor('default/slow/lead');
  await agent.call('browser_navigate', { url: pages.url });
  v = await openViewer(forge.info.port, forge.info.viewer_token);
  v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  await v.next('view');
  v.send({ t: 'control', take: true });
  await v.next('view', (m) => m.controller !== null && m.controller === m.you);
});

it.afterAll(async () => {
  await v?.close();
});

/** A page expression's value, as JSON through the agent's browser_evaluate (its answer's first line after "### Result" is the value). */
const read = async (expr: string): Promise<unknown> => {
  const text = (await agent.call('browser_evaluate', { function: `() => JSON.stringify(${expr})` })).text;
  const line = text.split('\n')[text.split('\n').indexOf('### Result') + 1]!;
  return JSON.parse(JSON.parse(line) as string);
};

describe('the controller\'s gestures on a slow page', () => {
  it('waiting moves give way to the newest, and the press after them lands after the last one, at its own point', async () => {
    for (let i = 0; i < MOVES; i++) v.send({ t: 'input', ev: { type: 'mouse', action: 'move', x: 10 + i, y: 20 + (i % 50), buttons: 0 } });
    v.send({ t: 'input', ev: { type: 'mouse', action: 'down', x: 400, y: 300, button: 'left', clickCount: 1 } });
    v.send({ t: 'input', ev: { type: 'mouse', action: 'up', x: 400, y: 300, button: 'left', clickCount: 1 } });
    await expect.poll(() => read('window.downAt'), { timeout: 20_000 }).toEqual([400, 300]);
    const moves = await read('window.movesBeforeDown') as number;
    // All 200 would take the page 8 s; the newest-position rule leaves a handful.
    expect(moves).toBeGreaterThan(0);
    expect(moves).toBeLessThan(MOVES / 2);
    // The last move the page saw before the press is the last one sent.
    expect(await read('window.lastBeforeDown')).toEqual([10 + MOVES - 1, 20 + ((MOVES - 1) % 50)]);
    expect(v.messages.filter((m) => m.t === 'error')).toEqual([]);
  });

  it('waiting wheels add up, so the page scrolls the whole distance the person scrolled', async () => {
    await agent.call('browser_evaluate', { function: '() => window.scrollTo(0, 0)' });
    // A move first keeps the page busy, so the wheels wait behind it.
    v.send({ t: 'input', ev: { type: 'mouse', action: 'move', x: 300, y: 300, buttons: 0 } });
    for (let i = 0; i < 40; i++) v.send({ t: 'input', ev: { type: 'wheel', x: 300, y: 300, dx: 0, dy: 25 } });
    await expect.poll(() => read('window.scrollY'), { timeout: 20_000 }).toBe(1000);
    expect(v.messages.filter((m) => m.t === 'error')).toEqual([]);
  });
});
