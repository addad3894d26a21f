import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

/** A tall page of noise: its full-page PNG is several MiB, as a long real page's can be. */
const NOISE = `<html><head><title>Noise</title><style>body{margin:0}</style></head><body><canvas id="c" width="1200" height="2400"></canvas><script>
  const c = document.getElementById('c').getContext('2d'); const img = c.createImageData(1200, 2400);
  for (let i = 0; i < img.data.length; i++) img.data[i] = i % 4 === 3 ? 255 : (Math.random() * 256) | 0;
  c.putImageData(img, 0, 0);
</script></body></html>`;

const it = toolPagesTest({}, { '/': NOISE });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/shots/lead');
  await a.call('browser_navigate', { url: pages.url });
});

type Content = Array<{ type: string; text?: string; uri?: string; mimeType?: string; size?: number; data?: string }>;

describe('a screenshot too big to carry inline is a file the agent reads by its link', () => {
  it('a full-page PNG past the inline bound is linked, not inlined, and resources/read returns the PNG', async () => {
    const r = await a.client.callTool({ name: 'browser_take_screenshot', arguments: { type: 'png', fullPage: true, filename: 'all.png' } });
    const content = r.content as Content;
    expect(r.isError, content[0]?.text).toBeFalsy();
    expect(content.some((c) => c.type === 'image')).toBe(false);
    expect(content[0]!.text).toContain('so it is linked below');
    const link = content.find((c) => c.type === 'resource_link')!;
    expect(link).toMatchObject({ name: 'all.png', mimeType: 'image/png' });
    const read = (await a.client.readResource({ uri: link.uri! })).contents[0] as { blob: string };
    const png = Buffer.from(read.blob, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBe(link.size);
    expect(png.length).toBeGreaterThan(1024 * 1024);
  });

  it('a small screenshot is still inline image content', async () => {
    const small = await a.client.callTool({ name: 'browser_take_screenshot', arguments: { type: 'jpeg' } });
    expect((small.content as Content).find((c) => c.type === 'image')?.mimeType).toBe('image/jpeg');
    expect((small.content as Content).some((c) => c.type === 'resource_link')).toBe(false);
  });
});
