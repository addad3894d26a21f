/**
 * A watched page whose renderer crashed is rebuilt in a fresh window on the agent's next call, and
 * the people watching it follow: frames of the new window reach them, and the arrows read its
 * history.
 */
import { describe, expect } from 'vitest';
import { crashRenderer } from './helpers/crash.js';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

let agent: Agent;

/** A page that paints all the time, so a live capture never goes quiet. */
const MOVING = `<title>Moving</title><style>body{margin:0} #box{position:absolute;top:100px;width:80px;height:80px;background:#36c}</style>
<div id="box"></div><script>let x = 0; setInterval(() => { x = (x + 9) % 600; document.getElementById('box').style.left = x + 'px'; }, 16);</script>`;

const it = forgeTest({}, { '/': MOVING, '/second': '<title>Second</title><p>second</p>' });

it.beforeAll(async ({ pages, agentFor }) => {
  agent = await agentFor('default/rebuild/lead');
  await agent.call('browser_navigate', { url: pages.url });
});

describe('a crashed page rebuilt under its viewers', () => {
  it('frames of the rebuilt window reach the viewer, and the arrows follow its history', async ({ forge, pages, viewer }) => {
    viewer.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await viewer.next('view');
    await viewer.waitFrames(5);

    await crashRenderer(forge.stateDir, pages.url);

    const r = await agent.call('browser_snapshot');
    expect(r.text).toMatch(/had crashed; forge reloaded it/);
    const afterRebuild = viewer.frames.length;
    await viewer.waitFrames(afterRebuild + 10, 15_000);

    const before = viewer.messages.length;
    await agent.call('browser_navigate', { url: `${pages.url}second` });
    await expect.poll(() => viewer.messages.slice(before).some((m) => m.t === 'history' && m.back === true), { timeout: 10_000 }).toBe(true);
  });
});
