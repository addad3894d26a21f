/**
 * The agent's video is the spec's recording: while a take runs the page is laid out at the file's
 * own 1280x720 and every viewer of the tab is told and sees that layout (fitted with bars on its
 * own surface); the take ends with a WebM a browser plays, and the layout is put back.
 */
import { describe, expect } from 'vitest';
import type { Agent, RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

/** A page that paints all the time: a counter, so the take has frames to keep. */
const TICKER = `<html><head><title>Ticker</title></head><body style="margin:0;background:#fff">
  <h1 id="n">0</h1><script>let n = 0; setInterval(() => { document.getElementById('n').textContent = String(++n); }, 40);</script></body></html>`;

const it = forgeTest({ toml: '[agent]\ncaps = ["devtools"]\n' }, { '/ticker': TICKER });

let forge: RunningServer;
let agent: Agent;
let viewer: TestViewer;

it.beforeAll(async ({ forge: f, pages, agentFor }) => {
  forge = f;
  agent = await agentFor('default/video/lead');
  const nav = await agent.call('browser_navigate', { url: `${pages.origin}/ticker` });
  expect(nav.isError, nav.text).toBe(false);
  viewer = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await viewer?.close();
});

type Content = Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string; size?: number }>;

const layout = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => [innerWidth, innerHeight]' })).text.replace(/\s/g, '');

describe('a video take lays the page out at 1280x720 for every viewer and answers a WebM that plays', () => {
  it('a viewer on a square surface sees its own layout before the take', async () => {
    viewer.send({ t: 'attach', tab: 1, w: 700, h: 700 });
    const v = await viewer.next('view');
    expect([v.width, v.height]).toEqual([700, 700]);
    expect(v.recording).toBeUndefined();
    expect(await layout()).toContain('[700,700]');
  });

  it('during the take the viewer is told, the page is 1280x720, and the viewer\'s frames are 1280x720', async () => {
    const r = await agent.call('browser_start_video', { filename: 'ticker.webm' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Recording tab 1');
    const v = await viewer.next('view', (m) => m.recording !== undefined);
    expect([v.width, v.height]).toEqual([1280, 720]);
    expect((v.recording as { message: string }).message).toContain('default/video/lead is recording this tab');
    expect(await layout()).toContain('[1280,720]');
    const from = viewer.frames.length;
    await viewer.waitFrames(from + 10, 20_000);
    // The picture the viewer fits into its 700x700 box (with bars) is the 1280x720 layout.
    const last = viewer.frames.at(-1)!;
    expect([last.frameW, last.frameH]).toEqual([1280, 720]);
    const resize = await agent.call('browser_resize', { width: 900, height: 600 });
    expect(resize.isError).toBe(true);
    expect(resize.text).toContain('is being recorded');
    await new Promise((r) => setTimeout(r, 1500));
  });

  it('the stop answers a WebM, read over MCP, that a browser plays at 1280x720', async ({ clientBrowser }) => {
    const r = await agent.client.callTool({ name: 'browser_stop_video', arguments: {} });
    const content = r.content as Content;
    expect(r.isError, content[0]?.text).toBeFalsy();
    const link = content.find((c) => c.type === 'resource_link');
    expect(link).toMatchObject({ name: 'ticker.webm', mimeType: 'video/webm' });
    const read = await agent.client.readResource({ uri: link!.uri! });
    const blob = (read.contents[0] as { blob?: string }).blob!;
    expect(Buffer.from(blob, 'base64').length).toBe(link!.size);
    const page = await clientBrowser.newPage();
    try {
      const played = await page.evaluate(async (data) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const video = document.createElement('video');
        video.muted = true;
        video.src = URL.createObjectURL(new Blob([bytes], { type: 'video/webm' }));
        document.body.append(video);
        await new Promise((resolve, reject) => {
          video.onloadeddata = resolve;
          video.onerror = () => reject(new Error(`the video did not load: ${video.error?.message ?? video.error?.code}`));
        });
        await video.play();
        await new Promise((r) => setTimeout(r, 300));
        return { duration: video.duration, width: video.videoWidth, height: video.videoHeight, time: video.currentTime };
      }, blob);
      expect(played.duration).toBeGreaterThan(1);
      expect([played.width, played.height]).toEqual([1280, 720]);
      expect(played.time).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('after the take the viewer is told it ended and the page has the viewer\'s layout again', async () => {
    const v = await viewer.next('view', (m) => m.recording === undefined);
    expect([v.width, v.height]).toEqual([700, 700]);
    expect(await layout()).toContain('[700,700]');
  });
});

describe('a take on a tab nobody views lays it out at 1280x720 and puts its own size back', () => {
  // The phone's width is under Chromium's narrowest window: its page width is emulated, and must come back too.
  it.for([
    { seat: 'default/video/solo', w: 900, h: 600, said: 'laid out at 900x600' },
    { seat: 'default/video/phone', w: 390, h: 700, said: 'laid out at 390x700' },
  ])('a tab laid out at $w by $h is 1280x720 during the take and $w by $h again after it', async ({ seat, w, h, said }, { pages, agentFor }) => {
    const agent = await agentFor(seat);
    await agent.call('browser_navigate', { url: `${pages.origin}/ticker` });
    expect((await agent.call('browser_resize', { width: w, height: h })).text).toContain(said);
    const size = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => [innerWidth, innerHeight]' })).text.replace(/\s/g, '');
    const start = await agent.call('browser_start_video', {});
    expect(start.isError, start.text).toBe(false);
    expect(await size()).toContain('[1280,720]');
    await new Promise((r) => setTimeout(r, 500));
    const stop = await agent.call('browser_stop_video');
    expect(stop.isError, stop.text).toBe(false);
    expect(Number(/(\d+) frames/.exec(stop.text)?.[1])).toBeGreaterThan(2);
    expect(await size()).toContain(`[${w},${h}]`);
    expect((await agent.call('browser_stop_video')).text).toContain('No videos were recorded');
  });
});
