/**
 * A watched tab's raw frame ring holds only what its current layout needs: after a big layout
 * shrinks, the slots that held its big frames are given back, and once nobody watches the tab the
 * ring holds nothing. (Each slot is sized for the largest viewport; a slot once written at
 * 1920x1200 kept its 9 MB resident through every smaller frame, and after the last viewer left.)
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { FRAME_RING_SLOTS } from '../src/workers/cdp/protocol.js';

const SEAT = 'default/ring/lead';
const ANIM = '<title>Anim</title><canvas id="c" width="600" height="400"></canvas><script>let t = 0; const g = document.getElementById("c").getContext("2d"); (function f() { g.fillStyle = "hsl(" + (t++ % 360) + ",80%,50%)"; g.fillRect(0, 0, 600, 400); requestAnimationFrame(f); })();</script>';
const BIG = { w: 1920, h: 1200 };
const SMALL = { w: 640, h: 360 };
const frameBytes = (s: { w: number; h: number }): number => s.w * s.h * 4;

const it = forgeTest({}, { '/anim': ANIM });

describe('the raw frame ring of a watched tab', () => {
  it('holds at most its current layout\'s frames after a layout shrinks, and nothing once nobody watches', async ({ forge, pages, agentFor, viewer }) => {
    const agent = await agentFor(SEAT);
    await agent.call('browser_navigate', { url: `${pages.url}anim` });
    const held = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } })).text();
      return Number(/forge_frame_ring_held_bytes\{profile="default\/default"\} (\d+)/.exec(text)?.[1] ?? NaN);
    };

    viewer.send({ t: 'attach', tab: 1, ...BIG });
    await viewer.waitFrames(10);
    // An animating page keeps a reference frame and one or two being written or encoded.
    await expect.poll(held, { timeout: 10_000 }).toBeGreaterThanOrEqual(2 * frameBytes(BIG));

    viewer.send({ t: 'resize', ...SMALL });
    const small = (): number => viewer.frames.filter((f) => f.frameW === SMALL.w && f.frameH === SMALL.h).length;
    await expect.poll(small, { timeout: 15_000 }).toBeGreaterThanOrEqual(10);
    // Frames still flow, so some slot is held, and no more than the small layout's frames. (A
    // capture restarted at the new size gives back every slot until its first frame is written:
    // the two hold together once that frame is in.)
    await expect.poll(held, { timeout: 10_000 }).toSatisfy((b: number) => b > 0 && b <= FRAME_RING_SLOTS * frameBytes(SMALL));

    viewer.send({ t: 'detach' });
    await expect.poll(held, { timeout: 10_000 }).toBe(0);
  });
});
