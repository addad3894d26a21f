/**
 * A page that paints nothing new (a still form, a text) still gets its first picture from its own
 * paint when a person opens it: Chromium had painted the window's new place before the capture
 * started counting, so without a fresh paint the first picture waited out its whole bound (two
 * seconds of "opening the browser…" on every show). The count of first pictures taken because
 * that wait ran out is on /metrics; here it must stay at 0 over three tabs opened one after another.
 */
import { describe, expect } from 'vitest';
import sharp from 'sharp';
import { FRAME_FLAG_KEYFRAME, FRAME_HEADER_BYTES, readFrameHeader } from '../dist/src/shared/protocol.js';
import { forgeTest } from './fixtures.js';
import { openViewer } from './helpers/viewer.js';

const still = (colour: string): string => `<title>${colour}</title><body style="margin:0;background:${colour}"><p>nothing moves here</p></body>`;

const it = forgeTest({}, { '/red': still('#ff0000'), '/green': still('#00c000'), '/blue': still('#0000ff') });

/** The sample `name` of the default profile in /metrics text. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{profile="default/default"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

/**
 * /metrics once it counts `keyframes` whole pictures encoded: the relay serves the figures the
 * server last pushed to it, and the late count goes out before the picture it made late.
 */
async function metricsAfter(port: number, token: string, keyframes: number): Promise<string> {
  for (let tries = 0; ; tries++) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    if ((sample(text, 'forge_encode_keyframes_total') ?? 0) >= keyframes || tries === 100) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a still page opened by a person', () => {
  it('gets its first picture from its own paint, not from the paint wait running out, tab after tab', async ({ forge, pages, agentFor }) => {
    const agent = await agentFor('default/still/lead');
    await agent.call('browser_navigate', { url: `${pages.url}red` });
    await agent.call('browser_tabs', { action: 'new', url: `${pages.url}green` });
    await agent.call('browser_tabs', { action: 'new', url: `${pages.url}blue` });
    const person = await openViewer(forge.info.port, forge.info.viewer_token);
    // Each tab's first whole picture, by the frame id its view names.
    const pictures: Array<{ tab: number; bytes: Buffer }> = [];
    const tabOfFrame = new Map<number, number>();
    person.ws.on('message', (data: Buffer, binary: boolean) => {
      if (!binary || data[0] !== 1) return;
      const h = readFrameHeader(new DataView(data.buffer, data.byteOffset, data.byteLength));
      const tab = tabOfFrame.get(h.id);
      if (tab !== undefined && h.flags & FRAME_FLAG_KEYFRAME && !pictures.some((p) => p.tab === tab)) pictures.push({ tab, bytes: Buffer.from(data.subarray(FRAME_HEADER_BYTES)) });
    });
    for (const tab of [1, 2, 3]) {
      person.send({ t: 'attach', seat: 'default/still/lead', tab, w: 900, h: 600 - tab * 20 });
      tabOfFrame.set((await person.next('view', (m) => m.tab === tab)).frame as number, tab);
      for (let waited = 0; !pictures.some((p) => p.tab === tab) && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(pictures.some((p) => p.tab === tab)).toBe(true);
    }
    const text = await metricsAfter(forge.info.port, forge.info.token, 3);
    expect(sample(text, 'forge_encode_keyframes_total')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'forge_first_pictures_late_total')).toBe(0);
    // Each first picture is its own page: its colour covers most of the picture.
    const colours: Array<[number, number, number]> = [[255, 0, 0], [0, 192, 0], [0, 0, 255]];
    for (const tab of [1, 2, 3]) {
      const { data, info } = await sharp(pictures.find((p) => p.tab === tab)!.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const [r, g, b] = colours[tab - 1]!;
      let near = 0;
      for (let i = 0; i < info.width * info.height; i++) if (Math.abs(data[i * 3]! - r) <= 24 && Math.abs(data[i * 3 + 1]! - g) <= 24 && Math.abs(data[i * 3 + 2]! - b) <= 24) near++;
      expect(near / (info.width * info.height)).toBeGreaterThan(0.9);
    }
    await person.close();
  });
});
