/**
 * An agent's highlight is seen where it points: browser_highlight's box is in the pixels of the
 * agent's screenshot and of a person's viewer picture, stays until browser_hide_highlight takes it
 * away, is not listed in the page's snapshot, and is refused while a dialog holds the tab.
 * browser_resume and browser_annotate, which forge cannot do, are refused in words.
 */
import { describe, expect } from 'vitest';
import sharp from 'sharp';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { picturePoint, showFirstTab, type ClientPage } from './helpers/client-page.js';

/** A white page with one white box in its middle half: the highlight's colour is the only colour. */
const PAGE = `<html><head><title>Plain</title></head><body style="margin:0;background:#fff">
  <div id="box" role="region" aria-label="Middle" style="position:fixed;left:25%;top:25%;width:50%;height:50%;background:#fff">Middle</div>
  <button style="position:fixed;left:0;bottom:0">Ring</button></body></html>`;

/** The box asked for: solid green, so a pixel inside it says whether it is drawn. */
const GREEN = 'background: rgb(0, 200, 0)';

const it = forgeTest({ toml: '[agent]\ncaps = ["devtools"]\n' }, { '/plain': PAGE });

type Content = Array<{ type: string; text?: string; data?: string }>;

/** The pixel at a fraction of the picture, from the seat's own screenshot. */
async function shotPixel(agent: Agent, fx: number, fy: number): Promise<[number, number, number]> {
  const r = await agent.client.callTool({ name: 'browser_take_screenshot', arguments: { type: 'png' } }, undefined, { timeout: 60_000 });
  const img = (r.content as Content).find((c) => c.type === 'image')!;
  const { data, info } = await sharp(Buffer.from(img.data!, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(info.height * fy) * info.width + Math.floor(info.width * fx)) * 3;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

const isGreen = ([r, g, b]: number[]): boolean => r! < 60 && g! > 150 && b! < 60;
const isWhite = ([r, g, b]: number[]): boolean => r! > 235 && g! > 235 && b! > 235;

let agent: Agent;

describe('a highlight is in the pixels the agent and the viewer see, until it is hidden', () => {
  it('the agent\'s screenshot shows the box over the element, and the snapshot does not list it', async ({ pages, agentFor }) => {
    agent = await agentFor('default/marks/lead');
    expect((await agent.call('browser_navigate', { url: `${pages.origin}/plain` })).isError).toBe(false);
    expect(isWhite(await shotPixel(agent, 0.5, 0.5))).toBe(true);
    const before = (await agent.call('browser_snapshot')).text;
    const r = await agent.call('browser_highlight', { target: '#box', element: 'the middle box', style: GREEN });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Highlighted the middle box');
    expect(isGreen(await shotPixel(agent, 0.5, 0.5))).toBe(true);
    // Outside the element the page is as it was.
    expect(isWhite(await shotPixel(agent, 0.1, 0.1))).toBe(true);
    expect((await agent.call('browser_snapshot')).text).toBe(before);
  });

  it('a person viewing the tab sees the box in the picture they receive', async ({ forge, clientBrowser }) => {
    let c: ClientPage | undefined;
    try {
      c = await showFirstTab(clientBrowser, forge.info.viewer_url, undefined, 'Plain');
      const at = await picturePoint(c.page, 0.5, 0.5);
      const pixel = async (): Promise<number[]> => {
        const { data } = await sharp(await c!.page.screenshot({ clip: { x: at.x, y: at.y, width: 1, height: 1 } })).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        return [...data.subarray(0, 3)];
      };
      await expect.poll(pixel, { timeout: 20_000 }).toSatisfy(isGreen);
      // The element follows the viewer's layout, and the box follows the element.
      expect(isGreen(await shotPixel(agent, 0.5, 0.5))).toBe(true);
      const hide = await agent.call('browser_hide_highlight', { target: '#box' });
      expect(hide.isError, hide.text).toBe(false);
      await expect.poll(pixel, { timeout: 20_000 }).toSatisfy(isWhite);
    } finally {
      await c?.close();
    }
  });

  it('browser_hide_highlight with no element takes every box away', async () => {
    await agent.call('browser_highlight', { target: '#box', style: GREEN });
    await agent.call('browser_highlight', { target: 'role=button[name="Ring"]', style: GREEN });
    expect(isGreen(await shotPixel(agent, 0.5, 0.5))).toBe(true);
    const r = await agent.call('browser_hide_highlight', {});
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Hid every highlight');
    expect(isWhite(await shotPixel(agent, 0.5, 0.5))).toBe(true);
  });

  it('a highlight of an element that is not there is an error, not a box of nothing', async () => {
    const r = await agent.call('browser_highlight', { target: '#nowhere' });
    expect(r.isError).toBe(true);
  });
});

describe('the devtools tools forge cannot do, and a held dialog, refuse in words', () => {
  it('a held dialog refuses browser_highlight before it reaches the page', async () => {
    await agent.call('browser_evaluate', { function: '() => { setTimeout(() => alert("Wait"), 0); }' });
    const r = await agent.call('browser_highlight', { target: '#box', style: GREEN });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/dialog/);
    expect((await agent.call('browser_handle_dialog', { accept: true })).isError).toBe(false);
    expect(isWhite(await shotPixel(agent, 0.5, 0.5))).toBe(true);
  });

  it('browser_resume says nothing is paused, and browser_annotate says why it is not available', async () => {
    const resume = await agent.call('browser_resume', { step: true });
    expect(resume.isError).toBe(true);
    expect(resume.text).toContain('nothing is paused');
    const annotate = await agent.call('browser_annotate', {});
    expect(annotate.isError).toBe(true);
    expect(annotate.text).toContain('annotation is not available');
  });
});
