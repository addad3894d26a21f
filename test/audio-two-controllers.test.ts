/**
 * Two people drive two tabs of one profile at once, and each hears their own tab and never the
 * other's: tab A plays 440 Hz and tab B 880 Hz together; what each controller's socket really
 * receives is decoded and its spectrum read, and a watcher's socket receives nothing.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { audioOf, packetLevel, power, sleep, tone, waitPackets, type Packet } from './helpers/sound.js';

/** Packets read per controller: a second of sound. */
const PACKETS = 50;
/** How far below the heard tone the other tab's tone must stay, as a power ratio (~34 dB). */
const APART = 50;
/** How much steeper than its tone a packet's wave may step between samples before it counts as cut. */
const STEP_SLACK = 3;

/**
 * The sequence numbers of the packets in which the other tab's tone stands within APART of the
 * heard one. A capture's first packet (sequence 0), or one where the heard tone is under half its
 * usual level, is where the capture cut in mid-wave (a step, which spreads over every pitch): it
 * is judged by the whole only.
 */
/**
 * Whether a packet's wave runs unbroken: no step between samples steeper than its tone allows and
 * no run of zeros (a capture that missed its turn on a loaded machine leaves a gap or a jump, and a
 * cut wave spreads energy over every pitch, a tone's octave above and below among them). A tab's
 * sound mixed into another's is a steady wave and still counts.
 */
function unbroken(p: Packet, hz: number): boolean {
  const n = p.pcm.length / p.channels;
  let peak = 0;
  for (let i = 0; i < n; i++) peak = Math.max(peak, Math.abs(p.pcm[i * p.channels]!));
  const steepest = peak * 2 * Math.PI * hz / p.rate * STEP_SLACK + 64;
  let zeros = 0;
  for (let i = 1; i < n; i++) {
    const x = p.pcm[i * p.channels]!;
    if (Math.abs(x - p.pcm[(i - 1) * p.channels]!) > steepest) return false;
    zeros = x === 0 ? zeros + 1 : 0;
    if (zeros > p.rate / 1000) return false;
  }
  return true;
}

function carrying(ps: Packet[], heard: number, other: number): number[] {
  const levels = ps.map((p) => packetLevel(p, heard)).sort((x, y) => x - y);
  const usual = levels[Math.floor(levels.length / 2)]!;
  const steady = ps.filter((p) => p.seq > 0 && packetLevel(p, heard) > usual / 2 && unbroken(p, heard));
  return steady.filter((p) => packetLevel(p, other) > packetLevel(p, heard) / APART).map((p) => p.seq);
}

let driverA: TestViewer;
let driverB: TestViewer;
let watcher: TestViewer;
let heardA: Packet[];
let heardB: Packet[];
let watched: Packet[];
let frameA = 0;
let frameB = 0;

const it = forgeTest({}, { '/a': tone(440), '/b': tone(880) });

it.beforeAll(async ({ forge, pages, agentFor }) => {
  const agent = await agentFor('default/sound/pair');
  await agent.call('browser_navigate', { url: `${pages.origin}/a` });
  expect((await agent.call('browser_evaluate', { function: '() => play()' })).text).toContain('running');
  await agent.call('browser_tabs', { action: 'new', url: `${pages.origin}/b` });
  expect((await agent.call('browser_evaluate', { function: '() => play()' })).text).toContain('running');
  [driverA, driverB, watcher] = await Promise.all([0, 1, 2].map(() => openViewer(forge.info.port, forge.info.viewer_token)));
  heardA = audioOf(driverA);
  heardB = audioOf(driverB);
  watched = audioOf(watcher);
  driverA.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  frameA = (await driverA.next('view')).frame as number;
  driverB.send({ t: 'attach', tab: 2, w: 800, h: 600 });
  frameB = (await driverB.next('view')).frame as number;
  watcher.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  await watcher.next('view');
  expect(frameB).not.toBe(frameA);
}, 120_000);

it.afterAll(async () => {
  await Promise.all([driverA, driverB, watcher].map((v) => v?.close()));
});

describe('two controllers on two tabs of one host, at once', () => {
  it('each controller hears its own tab\'s tone and never the other tab\'s, while both play', async () => {
    driverA.send({ t: 'control', take: true });
    driverB.send({ t: 'control', take: true });
    await Promise.all([driverA.next('view', (m) => m.controller === m.you), driverB.next('view', (m) => m.controller === m.you)]);
    const [a, b] = await Promise.all([waitPackets(heardA, PACKETS), waitPackets(heardB, PACKETS)]);
    expect(a.every((p) => p.frame === frameA)).toBe(true);
    expect(b.every((p) => p.frame === frameB)).toBe(true);
    const a440 = power(a, 440);
    const b880 = power(b, 880);
    expect(a440).toBeGreaterThan(0.05);
    expect(b880).toBeGreaterThan(0.05);
    expect(power(a, 880)).toBeLessThan(a440 / APART);
    expect(power(b, 440)).toBeLessThan(b880 / APART);
    // Never: no single packet of either carries the other tab's tone.
    expect(carrying(a, 440, 880)).toEqual([]);
    expect(carrying(b, 880, 440)).toEqual([]);
  });

  it('the first controller still hears only its tab after the second took control', async () => {
    const from = heardA.length;
    const a = (await waitPackets(heardA, from + PACKETS)).slice(from);
    expect(power(a, 880)).toBeLessThan(power(a, 440) / APART);
    expect(power(a, 440)).toBeGreaterThan(0.05);
  });

  it('a watcher of a heard tab receives no sound', async () => {
    await sleep(500);
    expect(watched).toEqual([]);
  });

  it('when one controller lets go, the other keeps hearing its own tab and the one let go hears nothing', async () => {
    driverB.send({ t: 'control', take: false });
    await driverB.next('view', (m) => m.controller === null);
    await sleep(300);
    const fromA = heardA.length;
    const fromB = heardB.length;
    await sleep(1_000);
    expect(heardB.length - fromB).toBe(0);
    const a = heardA.slice(fromA);
    expect(a.length).toBeGreaterThan(PACKETS * 0.8);
    expect(power(a, 880)).toBeLessThan(power(a, 440) / APART);
  });

  it('the one who let go takes control again and hears their own tab again', async () => {
    const from = heardB.length;
    driverB.send({ t: 'control', take: true });
    await driverB.next('view', (m) => m.controller === m.you);
    const b = (await waitPackets(heardB, from + PACKETS)).slice(from);
    expect(b.every((p) => p.frame === frameB)).toBe(true);
    expect(power(b, 880)).toBeGreaterThan(0.05);
    expect(carrying(b, 880, 440)).toEqual([]);
    expect(watched).toEqual([]);
  });
});
