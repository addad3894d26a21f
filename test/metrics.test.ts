/**
 * /metrics tells an operator what the server is doing, in Prometheus text: viewers, the frames
 * the relay sent and skipped, the tabs per profile, and each running host's encoder (which one
 * runs and what it encoded). A real server, a real animating page, a real viewer socket.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

let forge: RunningServer;
let pages: TestPages;
let agent: Agent;
let viewer: TestViewer | undefined;

/** A page that paints a new frame every animation frame. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the page's own script builds its colour with a template.
const ANIM = '<title>Anim</title><body style="margin:0"><canvas id=c width=400 height=300></canvas><script>const c=document.getElementById("c").getContext("2d");function f(t){c.fillStyle=`hsl(${t/5%360},80%,50%)`;c.fillRect(0,0,400,300);requestAnimationFrame(f)}requestAnimationFrame(f)</script>';

const it = forgeTest({}, { '/': ANIM });

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  agent = await agentFor('default/metrics/lead');
});

it.afterAll(async () => {
  await viewer?.close();
});

async function metrics(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } });
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

/** The value of the sample named `name` whose labels include every one of `labels`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return undefined;
}

describe('/metrics', () => {
  it('counts the viewers, the frames sent to them, the tabs, and what the host\'s encoder encoded, by profile and encoder', async () => {
    const before = await metrics();
    expect(sample(before, 'forge_relay_frames_sent_total')).toBe(0);
    expect(sample(before, 'forge_encode_frames_total', { profile: 'default/default' })).toBeUndefined();

    await agent.call('browser_navigate', { url: pages.url });
    viewer = await openViewer(forge.info.port, forge.info.viewer_token);
    viewer.send({ t: 'attach', w: 800, h: 600 });
    await viewer.next('view');
    await viewer.waitFrames(20);

    // Gauges reach the relay every couple of seconds and the encoder's counters every second.
    let text = '';
    await expect.poll(async () => {
      text = await metrics();
      return sample(text, 'forge_encode_frames_total', { profile: 'default/default', encoder: 'native' }) ?? 0;
    }, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(sample(text, 'forge_relay_viewers')).toBe(1);
    expect(sample(text, 'forge_browser_tabs', { profile: 'default/default' })).toBe(1);
    expect(sample(text, 'forge_relay_frames_sent_total')).toBeGreaterThanOrEqual(20);
    expect(sample(text, 'forge_relay_bytes_out_total')).toBeGreaterThan(sample(text, 'forge_encode_bytes_total', { profile: 'default/default' })! / 2);
    expect(sample(text, 'forge_encode_keyframes_total', { profile: 'default/default' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'forge_encode_seconds_total', { profile: 'default/default' })).toBeGreaterThan(0);
  });
});

describe('/metrics, by thread', () => {
  it('weighs each thread\'s heap apart: the relay\'s, the pty worker\'s once a terminal runs, and each host\'s capture and encoder, by profile', async () => {
    await agent.call('browser_navigate', { url: pages.url });
    await agent.call('terminal__run', { command: 'true' });
    let text = '';
    await expect.poll(async () => {
      text = await metrics();
      return sample(text, 'forge_thread_heap_used_bytes', { thread: 'pty' }) ?? 0;
    }, { timeout: 10_000 }).toBeGreaterThan(0);
    for (const labels of [{ thread: 'relay' } as Record<string, string>, { thread: 'pty' }, { thread: 'capture', profile: 'default/default' }, { thread: 'encode', profile: 'default/default' }]) {
      const used = sample(text, 'forge_thread_heap_used_bytes', labels);
      const total = sample(text, 'forge_thread_heap_total_bytes', labels);
      expect(used, JSON.stringify(labels)).toBeGreaterThan(1024 * 1024);
      expect(total!, JSON.stringify(labels)).toBeGreaterThanOrEqual(used!);
      expect(sample(text, 'forge_thread_external_bytes', labels), JSON.stringify(labels)).toBeGreaterThanOrEqual(0);
    }
    // A thread's heap is its own: the main thread's gauge is not any worker's.
    expect(sample(text, 'forge_thread_heap_used_bytes', { thread: 'pty' })).not.toBe(sample(text, 'forge_process_heap_used_bytes'));
  });

  it('names each worker thread for the system\'s tools, so `top -H` says which of the server\'s threads spends the CPU', () => {
    const names = readdirSync(`/proc/${forge.info.pid}/task`).map((tid) => {
      try { return readFileSync(`/proc/${forge.info.pid}/task/${tid}/comm`, 'utf8').trim(); } catch { return ''; }
    });
    // The browser and the terminal above run: the relay, the pty worker, and the host's capture and encoder.
    for (const name of ['forge-relay', 'forge-pty', 'forge-capture', 'forge-encode']) expect(names, name).toContain(name);
  });
});
