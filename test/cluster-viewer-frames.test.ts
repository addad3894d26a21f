import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';

let cluster: TestCluster<'alpha' | 'beta'>;
let alpha: RunningServer;
let beta: RunningServer;
let pages: PageServer;
let agent: Agent;
const viewers: TestViewer[] = [];

// A box that moves every 16 ms: the tab sends frames for as long as it is watched.
const page = `<title>Moving</title><style>body{margin:0} #box{position:absolute;left:0;top:100px;width:60px;height:60px;background:#c33}</style>
<div id="box"></div><script>let x = 0; setInterval(() => { x = (x + 7) % 600; document.getElementById('box').style.left = x + 'px'; }, 16);</script>`;

beforeAll(async () => {
  pages = await servePages({ '/': page });
  cluster = await startCluster(['alpha', 'beta']);
  ({ alpha, beta } = cluster.nodes);
  agent = await connectAgent(alpha, 'default/proj/lead');
  expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
});

afterAll(async () => {
  for (const v of viewers) await v.close();
  await agent?.close();
  await cluster?.stop();
  await pages?.close();
});

async function viewerOn(server: RunningServer): Promise<TestViewer> {
  const v = await openViewer(server.info.port, server.info.viewer_token);
  viewers.push(v);
  return v;
}

describe('viewers on any node get the frames of a tab hosted on another', () => {
  it('a viewer on beta sees the tabs alpha hosts and, attached, gets the tab\'s frames, a keyframe first', async () => {
    const v = await viewerOn(beta);
    v.send({ t: 'tabs' });
    const tabs = await v.next('tabs');
    expect(tabs.profile).toBe('default/default');
    expect((tabs.tabs as Array<{ title: string }>).map((t) => t.title)).toEqual(['Moving']);
    v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    const view = await v.next('view');
    expect(view).toMatchObject({ tab: 1, controller: null, width: 800, height: 600, profile: 'default/default' });
    await v.waitFrames(10);
    expect(v.frames[0]!.flags & 1).toBe(1);
    expect(v.frames[0]!.frameW).toBe(800);
    expect(v.frames.every((f) => f.id === view.frame)).toBe(true);
    expect(new Set(v.frames.map((f) => f.seq)).size).toBeGreaterThan(5);
  });

  it('a second viewer on beta, and one on alpha, each start on a keyframe and then get every patch on a frame they hold', async () => {
    const late = await viewerOn(beta);
    const local = await viewerOn(alpha);
    for (const v of [late, local]) v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await Promise.all([late.waitFrames(10), local.waitFrames(10)]);
    for (const v of [late, local]) {
      expect(v.frames[0]!.flags & 1).toBe(1);
      // Each patch builds on the frame before it (the viewer holds its base).
      let held = -1;
      for (const f of v.frames) {
        if (f.flags & 1) held = f.seq;
        else { expect(f.baseSeq).toBe(held); held = f.seq; }
      }
    }
  });

  it('once beta\'s viewers leave, alpha stops sending the tab\'s frames over NATS', async () => {
    const remote = viewers.filter((_, i) => i !== 2);
    for (const v of remote) await v.close();
    await new Promise((r) => setTimeout(r, 500));
    const before = await natsOutFrames(alpha);
    expect(before).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await natsOutFrames(alpha)).toBe(before);
    // The viewer on alpha still gets frames.
    const local = viewers[2]!;
    const n = local.frames.length;
    await local.waitFrames(n + 5);
  });
});

/** alpha's count of frames sent to other nodes, from its /metrics. */
async function natsOutFrames(server: RunningServer): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${server.info.port}/metrics`, { headers: { authorization: `Bearer ${server.info.token}` } });
  const m = /forge_cluster_frames_out_total (\d+)/.exec(await r.text());
  if (!m) throw new Error('no forge_cluster_frames_out_total in /metrics');
  return Number(m[1]);
}
