/**
 * The page's sound reaches the controller of the tab it plays on, and nobody else: tab A plays
 * 440 Hz, tab B 880 Hz, both at once; what the sockets really receive is decoded and its
 * spectrum read.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { audioOf, power, sleep, tone, waitPackets, type Packet } from './helpers/sound.js';

let pages: TestPages;
let agent: Agent;
let controller: TestViewer;
let watcher: TestViewer;

let controllerAudio: Packet[];
let watcherAudio: Packet[];
let frameA = 0;
let frameB = 0;

const it = forgeTest({}, { '/a': tone(440), '/b': tone(880), '/c': tone(660) });

it.beforeAll(async ({ forge, pages: p, agentFor }) => {
  pages = p;
  agent = await agentFor('default/sound/lead');
  await agent.call('browser_navigate', { url: `${pages.origin}/a` });
  expect((await agent.call('browser_evaluate', { function: '() => play()' })).text).toContain('running');
  await agent.call('browser_tabs', { action: 'new', url: `${pages.origin}/b` });
  expect((await agent.call('browser_evaluate', { function: '() => play()' })).text).toContain('running');
  controller = await openViewer(forge.info.port, forge.info.viewer_token);
  watcher = await openViewer(forge.info.port, forge.info.viewer_token);
  controllerAudio = audioOf(controller);
  watcherAudio = audioOf(watcher);
}, 120_000);

it.afterAll(async () => {
  await controller?.close();
  await watcher?.close();
});

describe('the page\'s sound, at the controller of the viewed tab only', () => {
  it('a tab nobody controls sends no sound, to its watchers or anyone', async () => {
    watcher.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    frameA = (await watcher.next('view')).frame as number;
    controller.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await controller.next('view');
    await watcher.waitFrames(1);
    await sleep(1_000);
    expect(controllerAudio.length + watcherAudio.length).toBe(0);
  });

  it('the controller of tab A hears 440 Hz and never tab B\'s 880 Hz, while both play', async () => {
    controller.send({ t: 'control', take: true });
    await controller.next('view', (m) => m.controller === m.you);
    const got = await waitPackets(controllerAudio, 50); // a second of sound
    expect(got.every((p) => p.frame === frameA)).toBe(true);
    expect(got[0]).toMatchObject({ rate: 48_000, channels: 2 });
    expect(got[0]!.pcm.length).toBe(960 * 2); // 20 ms of stereo
    const p440 = power(got, 440);
    const p880 = power(got, 880);
    expect(p440).toBeGreaterThan(0.05);
    expect(p880).toBeLessThan(p440 / 50);
  });

  it('a watcher of the tab being heard receives no sound', async () => {
    await sleep(500);
    expect(watcherAudio.length).toBe(0);
  });

  it('switching the surface to tab B brings 880 Hz, carried as tab B\'s', async () => {
    controller.send({ t: 'attach', tab: 2, w: 800, h: 600 });
    frameB = (await controller.next('view', (m) => m.tab === 2)).frame as number;
    expect(frameB).not.toBe(frameA);
    controller.send({ t: 'control', take: true });
    await controller.next('view', (m) => m.tab === 2 && m.controller === m.you);
    const got = await waitPackets(controllerAudio, 50, (p) => p.frame === frameB);
    const p880 = power(got, 880);
    expect(p880).toBeGreaterThan(0.05);
    expect(power(got, 440)).toBeLessThan(p880 / 50);
    expect(watcherAudio.length).toBe(0);
  });

  it('a page that mutes itself sends nothing', async () => {
    await agent.call('browser_evaluate', { function: '() => hush()' });
    await sleep(500);
    const before = controllerAudio.length;
    await sleep(1_000);
    const late = controllerAudio.slice(before);
    expect(late.every((p) => power([p], 880) < 0.001)).toBe(true);
    expect(late.length).toBeLessThan(5);
  });

  it('a tab opened while another is heard starts muted: its tone never reaches that controller', async () => {
    await agent.call('browser_tabs', { action: 'new', url: `${pages.origin}/c` });
    expect((await agent.call('browser_evaluate', { function: '() => play()' })).text).toContain('running');
    const before = controllerAudio.length;
    await sleep(1_500);
    const late = controllerAudio.slice(before);
    expect(power(late, 660)).toBeLessThan(0.001);
    expect(late.length).toBeLessThan(5);
  });
});
