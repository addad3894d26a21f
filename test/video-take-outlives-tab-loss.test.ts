/**
 * A take keeps what it had when its tab's page goes: the memory budget leaves a recorded tab
 * loaded (as it does a watched one), a crashed page rebuilt by forge is recorded on at the
 * file's layout, and a take stopped while its page lies crashed still answers a file of every
 * frame recorded up to the crash, saying so.
 */
import { describe, expect } from 'vitest';
import type { Agent, RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { crashRenderer } from './helpers/crash.js';
import { framesOf, pixelsOf } from './helpers/webm-frames.js';

/** A page that paints all the time: a counter, so the take has frames to keep. */
const TICKER = `<html><head><title>Ticker</title></head><body style="margin:0;background:#fff">
  <h1 id="n">0</h1><script>let n = 0; setInterval(() => { document.getElementById('n').textContent = String(++n); }, 40);</script></body></html>`;

const it = forgeTest({ toml: '[agent]\ncaps = ["devtools"]\n[browser]\nhidden_agent_tabs = 1\n' }, { '/ticker': TICKER, '/other': '<title>Other</title>other', '/third': '<title>Third</title>third' });

type Content = Array<{ type: string; text?: string; uri?: string }>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let forge: RunningServer;

/** Stops the seat's take: its answer's text and its file. */
async function stop(agent: Agent): Promise<{ text: string; file: Buffer }> {
  const r = await agent.client.callTool({ name: 'browser_stop_video', arguments: {} });
  const content = r.content as Content;
  expect(r.isError, content[0]?.text).toBeFalsy();
  const link = content.find((c) => c.type === 'resource_link')!;
  const read = await agent.client.readResource({ uri: link.uri! });
  return { text: content[0]!.text!, file: Buffer.from((read.contents[0] as { blob: string }).blob, 'base64') };
}

/** The take's time now, ms: a chapter mark with no card answers it. */
async function now(agent: Agent): Promise<number> {
  const r = await agent.call('browser_video_chapter', { title: 'now', duration: 0 });
  expect(r.isError, r.text).toBe(false);
  return Number(/added at ([\d.]+) s/.exec(r.text)?.[1]) * 1000;
}

/** Every frame of the file decodes to a 1280x720 picture. */
async function expectPlayable(file: Buffer): Promise<void> {
  const frames = framesOf(file);
  expect(frames.length).toBeGreaterThan(3);
  for (const f of frames) {
    const p = await pixelsOf(f);
    expect([p.width, p.height]).toEqual([1280, 720]);
  }
}

describe('the memory budget leaves a recorded tab loaded, and its take goes on', () => {
  it('tabs opened past the budget unload others, never the tab being recorded', async ({ forge: f, pages, agentFor }) => {
    forge = f;
    const agent = await agentFor('default/budget/lead');
    expect((await agent.call('browser_navigate', { url: `${pages.origin}/ticker` })).isError).toBe(false);
    expect((await agent.call('browser_start_video', { filename: 'kept.webm' })).isError).toBe(false);
    await sleep(500);
    const opened = await now(agent);
    for (const path of ['/other', '/third']) {
      const r = await agent.call('browser_tabs', { action: 'new', url: `${pages.origin}${path}` });
      expect(r.isError, r.text).toBe(false);
    }
    await sleep(1_500);
    const list = await agent.call('browser_tabs', { action: 'list' });
    const recorded = list.text.split('\n').find((l) => l.includes('/ticker'))!;
    expect(recorded, list.text).not.toContain('unloaded');
    // Another tab went instead: the budget still holds.
    expect(list.text).toContain('unloaded');
    expect((await agent.call('browser_tabs', { action: 'select', index: 1 })).isError).toBe(false);
    const { text, file } = await stop(agent);
    expect(text).not.toContain('crashed');
    const frames = framesOf(file);
    // The ticker kept painting into the take after the other tabs opened.
    expect(frames.filter((x) => x.atMs > opened + 1_000).length).toBeGreaterThan(5);
    await expectPlayable(file);
  });
});

describe('a take whose page crashes keeps its frames, and goes on recording the rebuilt page', () => {
  it('the call after the crash rebuilds the page, and the take records it at 1280x720', async ({ pages, agentFor }) => {
    const agent = await agentFor('default/crash/lead');
    const url = `${pages.origin}/ticker?crash=1`;
    expect((await agent.call('browser_navigate', { url })).isError).toBe(false);
    expect((await agent.call('browser_start_video', { filename: 'crash.webm' })).isError).toBe(false);
    await sleep(800);
    await crashRenderer(forge.stateDir, url);
    const snap = await agent.call('browser_snapshot', {});
    expect(snap.isError, snap.text).toBe(false);
    expect(snap.text).toContain('had crashed; forge reloaded it');
    const rebuilt = await now(agent);
    const layout = await agent.call('browser_evaluate', { function: '() => [innerWidth, innerHeight]' });
    expect(layout.text.replace(/\s/g, '')).toContain('[1280,720]');
    await sleep(1_000);
    const { text, file } = await stop(agent);
    expect(text).toMatch(/crashed at [\d.]+ s of the take; the frames up to then are kept/);
    expect(text).toContain('the take went on recording the reloaded page');
    const frames = framesOf(file);
    expect(frames.filter((x) => x.atMs < rebuilt - 1_000).length, 'frames before the crash').toBeGreaterThan(3);
    expect(frames.filter((x) => x.atMs > rebuilt + 200).length, 'frames of the rebuilt page').toBeGreaterThan(5);
    await expectPlayable(file);
  });

  it('a take stopped while its page lies crashed answers the frames up to the crash, and says so', async ({ pages, agentFor }) => {
    const agent = await agentFor('default/crash-stop/lead');
    const url = `${pages.origin}/ticker?crash=2`;
    expect((await agent.call('browser_navigate', { url })).isError).toBe(false);
    expect((await agent.call('browser_start_video', { filename: 'lost.webm' })).isError).toBe(false);
    await sleep(800);
    await crashRenderer(forge.stateDir, url);
    const { text, file } = await stop(agent);
    expect(text).toMatch(/crashed at [\d.]+ s of the take; the frames up to then are kept/);
    await expectPlayable(file);
    // The tab is rebuilt by its next call, at its own layout again (no take holds it).
    const snap = await agent.call('browser_snapshot', {});
    expect(snap.text).toContain('had crashed; forge reloaded it');
  });
});
