import { describe, expect } from 'vitest';
import sharp from 'sharp';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';
import { centre, shoot } from './helpers/screenshot.js';

let pages: ToolPages;
let red: Agent;
let blue: Agent;

const page = (c: string) => `<html><head><title>${c}</title><style>html,body{margin:0;background:${c};height:100%}</style></head><body><div id="box" style="width:120px;height:50px;background:lime">box</div></body></html>`;
const it = toolPagesTest({}, { '/red': page('rgb(255,0,0)'), '/blue': page('rgb(0,0,255)') });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  red = await agentFor('default/shots/red');
  blue = await agentFor('default/shots/blue');
});

describe('a screenshot is a picture of the seat\'s own tab, in the answer', () => {
  it('two seats\' screenshots never show each other\'s tab', async () => {
    await red.call('browser_navigate', { url: `${pages.origin}/red` });
    await blue.call('browser_navigate', { url: `${pages.origin}/blue` });
    for (let i = 0; i < 2; i++) {
      const [r, b] = await Promise.all([shoot(red, {}), shoot(blue, {})]);
      expect(await centre(r.bytes)).toEqual([255, 0, 0]);
      expect(await centre(b.bytes)).toEqual([0, 0, 255]);
    }
  });

  it('a png is a real PNG of the viewport\'s size, returned as image content and not as a path', async () => {
    const s = await shoot(red, { type: 'png', filename: 'page.png' });
    expect(s.isError).toBe(false);
    expect(s.mime).toBe('image/png');
    expect(s.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const size = (await red.call('browser_evaluate', { function: '() => [innerWidth, innerHeight]' })).text.replace(/\s/g, '');
    const [w, h] = JSON.parse(/\[\d+,\d+\]/.exec(size)![0]) as [number, number];
    expect([s.bytes.readUInt32BE(16), s.bytes.readUInt32BE(20)]).toEqual([w, h]);
    expect(s.text).toContain('not saved on the server');
    expect(s.text).not.toMatch(/\/tmp\/|\.local\/state/);
  });

  it('a jpeg is a real JPEG; webp is a real WebP', async () => {
    const j = await shoot(red, { type: 'jpeg' });
    expect(j.mime).toBe('image/jpeg');
    expect([j.bytes[0], j.bytes[1], j.bytes[2]]).toEqual([0xff, 0xd8, 0xff]);
    const w = await shoot(red, { type: 'webp' });
    expect(w.mime).toBe('image/webp');
    expect(w.bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(w.bytes.subarray(8, 12).toString('latin1')).toBe('WEBP');
  });

  it('an element screenshot is that element\'s size, by target', async () => {
    const s = await shoot(red, { element: 'the box', target: '#box' });
    const meta = await sharp(s.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([120, 50]);
    const f = await shoot(red, { target: '#box', fullPage: true });
    expect(f.isError).toBe(true);
    expect(f.text).toContain('give one of them');
  });
});
