/**
 * A chapter an agent marks while it records is in the video twice over: a chapter in the WebM's
 * own Chapters (title, start at the moment it was marked) and the chapter card in the frames from
 * that moment. Action callouts asked with browser_video_show_actions are painted over the page
 * before each action, and stop with browser_video_hide_actions.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

const PAGE = `<html><head><title>Cart</title></head><body style="margin:0;background:#fff">
  <button style="position:fixed;left:5%;top:80%;width:10%;height:10%" onclick="this.textContent='Paid'">Pay</button></body></html>`;

const it = forgeTest({ toml: '[agent]\ncaps = ["devtools"]\n' }, { '/cart': PAGE });

type Content = Array<{ type: string; text?: string; uri?: string; data?: string }>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The chapters of a WebM, read by walking its EBML elements as the Matroska spec lays them out. */
function chaptersOf(file: Buffer): Array<{ title: string; startMs: number }> {
  const MASTERS = new Set([0x18538067, 0x1043a770, 0x45b9, 0xb6, 0x80]);
  const out: Array<{ title: string; startMs: number }> = [];
  const vint = (at: number, keepMarker: boolean): { value: number; len: number } => {
    const first = file[at]!;
    let len = 1;
    while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
    let value = keepMarker ? first : first & ((0x80 >> (len - 1)) - 1);
    for (let i = 1; i < len; i++) value = value * 256 + file[at + i]!;
    return { value, len };
  };
  const walk = (from: number, to: number): void => {
    for (let at = from; at < to;) {
      const id = vint(at, true);
      const size = vint(at + id.len, false);
      const body = at + id.len + size.len;
      if (id.value === 0xb6) out.push({ title: '', startMs: NaN });
      if (MASTERS.has(id.value)) walk(body, body + size.value);
      if (id.value === 0x91) out.at(-1)!.startMs = file.readUIntBE(body, size.value) / 1e6;
      if (id.value === 0x85) out.at(-1)!.title = file.toString('utf8', body, body + size.value);
      at = body + size.value;
    }
  };
  walk(0, file.length);
  return out;
}

let agent: Agent;

/** A marker in the take's time line: a chapter with no card time, answering the moment, ms. */
async function moment(title: string): Promise<number> {
  const r = await agent.call('browser_video_chapter', { title, duration: 0 });
  expect(r.isError, r.text).toBe(false);
  return Number(/added at ([\d.]+) s/.exec(r.text)?.[1]) * 1000;
}

/** Every frame a browser shows playing the file: its time (ms) and the mean brightness of the middle and of the top-left corner. */
async function playedFrames(browser: Browser, file: Buffer): Promise<Array<{ atMs: number; middle: number; corner: number }>> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const video = document.createElement('video');
      video.muted = true;
      video.src = URL.createObjectURL(new Blob([bytes], { type: 'video/webm' }));
      const canvas = document.createElement('canvas');
      canvas.width = 1280;
      canvas.height = 720;
      const g = canvas.getContext('2d', { willReadFrequently: true })!;
      const mean = (x: number, y: number, w: number, h: number): number => {
        const d = g.getImageData(x, y, w, h).data;
        let sum = 0;
        for (let i = 0; i < d.length; i += 4) sum += d[i]! + d[i + 1]! + d[i + 2]!;
        return sum / (d.length / 4) / 3;
      };
      const seen: Array<{ atMs: number; middle: number; corner: number }> = [];
      await new Promise<void>((resolve, reject) => {
        video.onerror = () => reject(new Error('the video did not load'));
        video.onended = () => resolve();
        const each = (_now: number, meta: { mediaTime: number }): void => {
          g.drawImage(video, 0, 0, 1280, 720);
          seen.push({ atMs: meta.mediaTime * 1000, middle: mean(512, 331, 256, 58), corner: mean(0, 0, 320, 86) });
          video.requestVideoFrameCallback(each);
        };
        video.requestVideoFrameCallback(each);
        void video.play().catch(reject);
      });
      return seen;
    }, file.toString('base64'));
  } finally {
    await page.close();
  }
}

describe('a take\'s chapters and action callouts are in the file, its metadata and its frames', () => {
  let file: Buffer;
  let markedAt = 0;
  let showing: [number, number] = [0, 0];
  let hidden: [number, number] = [0, 0];

  it('the chapter answers the moment of the take it marks; action callouts go on and off', async ({ pages, agentFor }) => {
    agent = await agentFor('default/chapters/lead');
    expect((await agent.call('browser_navigate', { url: `${pages.origin}/cart` })).isError).toBe(false);
    const start = await agent.call('browser_start_video', { filename: 'cart.webm' });
    expect(start.isError, start.text).toBe(false);
    await sleep(1_000);
    const mark = await agent.call('browser_video_chapter', { title: 'Checkout', description: 'paying for the cart', duration: 1_500 });
    expect(mark.isError, mark.text).toBe(false);
    markedAt = Number(/added at ([\d.]+) s/.exec(mark.text)?.[1]) * 1000;
    expect(markedAt).toBeGreaterThan(900);
    await sleep(500);
    const on = await agent.call('browser_video_show_actions', { duration: 1_000, position: 'top-left', cursor: 'none' });
    expect(on.isError, on.text).toBe(false);
    const a = await moment('before the shown click');
    expect((await agent.call('browser_click', { target: 'role=button[name="Pay"]' })).isError).toBe(false);
    const b = await moment('after the shown click');
    showing = [a, b];
    const off = await agent.call('browser_video_hide_actions', {});
    expect(off.isError, off.text).toBe(false);
    const c = await moment('before the plain click');
    expect((await agent.call('browser_click', { target: 'role=button[name="Paid"]' })).isError).toBe(false);
    await sleep(1_200);
    const d = await moment('after the plain click');
    hidden = [c, d];
    await sleep(500);
    const stop = await agent.client.callTool({ name: 'browser_stop_video', arguments: {} });
    const link = (stop.content as Content).find((x) => x.type === 'resource_link')!;
    const read = await agent.client.readResource({ uri: link.uri! });
    file = Buffer.from((read.contents[0] as { blob: string }).blob, 'base64');
  });

  it('the WebM\'s Chapters hold each title (and description) from the moment it was marked', () => {
    const chapters = chaptersOf(file);
    expect(chapters.map((c) => c.title)).toEqual(['Checkout: paying for the cart', 'before the shown click', 'after the shown click', 'before the plain click', 'after the plain click']);
    expect(Math.abs(chapters[0]!.startMs - markedAt)).toBeLessThan(6);
    expect(Math.abs(chapters[3]!.startMs - hidden[0])).toBeLessThan(6);
  });

  it('a browser playing the file shows the card after the mark, the callout while shown, and neither elsewhere', async ({ clientBrowser }) => {
    const frames = await playedFrames(clientBrowser, file);
    const within = (from: number, to: number) => frames.filter((f) => f.atMs >= from && f.atMs <= to);
    expect(frames.length).toBeGreaterThan(10);
    // Before the mark the middle of the page is plain white; after it the card is there.
    expect(Math.min(...within(0, markedAt - 100).map((f) => f.middle))).toBeGreaterThan(235);
    expect(Math.min(...within(markedAt, markedAt + 1_500).map((f) => f.middle))).toBeLessThan(150);
    // The corner is plain until actions are shown, dark while the shown click runs, plain after hide_actions.
    expect(Math.min(...within(0, showing[0]).map((f) => f.corner))).toBeGreaterThan(245);
    expect(Math.min(...within(showing[0], showing[1]).map((f) => f.corner))).toBeLessThan(235);
    expect(Math.min(...within(hidden[0] + 400, hidden[1]).map((f) => f.corner))).toBeGreaterThan(245);
  });
});

describe('a chapter with no take of the tab shows its card and says no file has it', () => {
  it('the answer says no recording of the seat runs', async () => {
    const r = await agent.call('browser_video_chapter', { title: 'Loose', duration: 200 });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('no recording of yours runs');
  });
});
