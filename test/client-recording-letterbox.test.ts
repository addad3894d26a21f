/**
 * A person who drives a tab an agent records is told, and sees the video's 1280x720 layout fitted
 * into their own surface with bars; when the take ends they are told again and the page has their
 * surface's shape once more.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { picturePoint, pictureFitsBox, showFirstTab, takeControl, type ClientPage } from './helpers/client-page.js';

const it = forgeTest({ toml: '[agent]\ncaps = ["devtools"]\n' }, {
  '/': '<html><head><title>Board</title></head><body style="margin:0;background:#fff"><h1>Board</h1></body></html>',
});

/** A square surface: a 16:9 picture in it has bars above and below. */
const SQUARE = { width: 900, height: 900 };

let agent: Agent;
let person: ClientPage;

it.beforeAll(async ({ forge, pages, agentFor, clientBrowser }) => {
  agent = await agentFor('default/letterbox/lead');
  await agent.call('browser_navigate', { url: pages.url });
  person = await showFirstTab(clientBrowser, forge.info.viewer_url, SQUARE);
  await takeControl(person);
});

it.afterAll(async () => {
  await person?.close();
});

const frame = (): Promise<string | null> => person.page.locator('.surface-canvas').getAttribute('data-frame');
const notice = (): Promise<string> => person.page.locator('.bar-notice').innerText();

describe('a recorded tab is shown to its person letterboxed, with words', () => {
  it('during the take the person is told and the 1280x720 picture sits between bars', async () => {
    const r = await agent.call('browser_start_video');
    expect(r.isError, r.text).toBe(false);
    await expect.poll(frame, { timeout: 20_000 }).toBe('1280x720');
    await expect.poll(notice, { timeout: 10_000 }).toContain('default/letterbox/lead is recording this tab');
    expect(await pictureFitsBox(person.page)).toBe(false);
    const box = (await person.page.locator('.surface-canvas').boundingBox())!;
    const top = await picturePoint(person.page, 0, 0);
    const bottom = await picturePoint(person.page, 1, 1);
    expect(top.y - box.y).toBeGreaterThan(50);
    expect((bottom.x - top.x) / (bottom.y - top.y)).toBeCloseTo(1280 / 720, 1);
    await person.shot('recording-letterboxed');
  });

  it('after the take the person is told and the page has their surface\'s shape again', async () => {
    expect((await agent.call('browser_stop_video')).isError).toBe(false);
    await expect.poll(() => pictureFitsBox(person.page), { timeout: 20_000 }).toBe(true);
    await expect.poll(notice, { timeout: 10_000 }).toContain('The recording ended');
  });
});
