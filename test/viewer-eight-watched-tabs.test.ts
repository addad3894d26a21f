/**
 * Eight tabs of one host watched at once, each by its own viewer, all keep moving: every viewer
 * gets frames of its own tab. (With a frame ring of one slot per watched tab, every slot was some
 * tab's reference frame and no tab got a frame after its first.)
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

const SEAT = 'default/eight/lead';
const WATCHED = 8;
/** A tab's size here, px: small enough that the host's screen tiles all eight windows. */
const SURFACE = { w: 640, h: 360 };
const ANIM = '<title>Anim</title><style>body{margin:0}</style><canvas id="c" width="600" height="300"></canvas><script>let t = 0; const g = document.getElementById("c").getContext("2d"); (function f() { g.fillStyle = "hsl(" + (t++ % 360) + ",80%,50%)"; g.fillRect(0, 0, 600, 300); requestAnimationFrame(f); })();</script>';

const it = forgeTest({ toml: '[browser]\nhidden_agent_tabs = 10\n' }, { '/anim': ANIM });

describe('eight watched tabs of one host', () => {
  it('every viewer of the eight gets frames of its own tab, and keeps getting them', async ({ forge, pages, agentFor }) => {
    const agent = await agentFor(SEAT);
    await agent.call('browser_navigate', { url: `${pages.url}anim` });
    for (let i = 1; i < WATCHED; i++) await agent.call('browser_tabs', { action: 'new', url: `${pages.url}anim` });
    const viewers: TestViewer[] = [];
    try {
      for (let tab = 1; tab <= WATCHED; tab++) {
        const v = await openViewer(forge.info.port, forge.info.viewer_token);
        viewers.push(v);
        v.send({ t: 'attach', tab, ...SURFACE });
        await v.next('view');
      }
      // Counted from once all eight are watched: frames while others were still attaching do not count.
      const from = viewers.map((v) => v.frames.length);
      for (const [i, v] of viewers.entries()) {
        await expect.poll(() => v.frames.length - from[i]!, { timeout: 20_000, message: `the viewer of tab ${i + 1} got no new frames` }).toBeGreaterThanOrEqual(5);
      }
    } finally {
      for (const v of viewers) await v.close();
    }
  });
});
