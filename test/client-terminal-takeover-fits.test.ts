/**
 * The terminal raised over the home page fills the takeover, and its bar stays legible with a
 * hand-off on it, at a desktop width. Before: the terminal sat in 24 rows at the top of a 700 px
 * stage, the grid never refitted (the attach was measured before the screen was laid out), and a
 * hand-off's reason and answers squeezed the bar's title to nothing, with the pane chord's hint
 * drawn over the state line.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { forgeTest } from './fixtures.js';
import { openClient } from './helpers/client-page.js';

const SEAT = 'default/fits/lead';
const it = forgeTest();

/** Whether two boxes share any pixel. */
const overlap = (a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The rows the page's xterm draws. */
const drawnRows = (page: Page): Promise<number> => page.locator('.xterm-rows > div').count();

describe('the terminal in the home page\'s takeover', () => {
  it('fills the stage under the bar, and the shell takes that grid when the person takes the keyboard', async ({ forge, agentFor, clientBrowser }) => {
    const agent = await agentFor(SEAT);
    await agent.call('terminal__run', { command: 'echo ready' });
    const person = await openClient(clientBrowser, forge.info.viewer_url, { width: 1100, height: 750 });
    await person.page.getByRole('button', { name: `show the terminal of ${SEAT}` }).click();
    await person.page.locator('.term-surface .xterm-rows').waitFor({ timeout: 15_000 });
    const stage = (await person.page.locator('.stage').boundingBox())!;
    const screen = (await person.page.locator('.term-screen').boundingBox())!;
    expect(Math.abs(screen.height - stage.height)).toBeLessThanOrEqual(1);
    const fitted = await drawnRows(person.page);
    // A smaller screen shows it too while nobody holds the keyboard: the shell follows that one.
    const small = await openClient(clientBrowser, forge.info.viewer_url, { width: 800, height: 420 });
    await small.page.getByRole('button', { name: `show the terminal of ${SEAT}` }).click();
    await small.page.locator('.term-surface .xterm-rows').waitFor({ timeout: 15_000 });
    await expect.poll(() => drawnRows(person.page), { timeout: 10_000 }).toBeLessThan(fitted);
    // The person takes the keyboard: the holder's size stands, so the shell gets their grid back.
    await person.page.getByRole('button', { name: 'take control' }).click();
    await person.page.getByRole('button', { name: 'release control' }).waitFor();
    await expect.poll(() => drawnRows(person.page), { timeout: 10_000 }).toBe(fitted);
    // The grid fills the screen: less than one row's height is left under its last row.
    const last = (await person.page.locator('.xterm-rows > div').last().boundingBox())!;
    expect(screen.y + screen.height - (last.y + last.height)).toBeLessThan(last.height + 8);
    await person.page.getByRole('button', { name: 'release control' }).click();
    await person.page.getByRole('button', { name: 'take control' }).waitFor();
    const size = await agent.call('terminal__run', { command: 'stty size' });
    expect(size.text).toMatch(new RegExp(`\\b${fitted} \\d+\\b`));
    await small.close();
    await person.close();
  });

  it('keeps the title whole and the hint off the state line with a hand-off on the bar', async ({ forge, agentFor, clientBrowser }) => {
    const agent = await agentFor(SEAT);
    const call = agent.client.callTool({ name: 'terminal_hand_off', arguments: { reason: 'Type the deploy password, please', hidden: true } }, undefined, { timeout: 60_000 });
    const person = await openClient(clientBrowser, forge.info.viewer_url, { width: 1100, height: 750 });
    await person.page.getByRole('button', { name: 'Open terminal' }).first().click();
    await person.page.locator('.term-reason').filter({ hasText: 'Type the deploy password' }).waitFor({ timeout: 15_000 });
    const title = person.page.locator('.bar-title');
    await expect.poll(() => title.textContent()).toMatch(/^terminal \d+ · \w+ · \//);
    // Shown whole: not cut to an ellipsis.
    expect(await title.evaluate((e) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);
    const heading = (await person.page.locator('.bar-heading').boundingBox())!;
    const actions = (await person.page.locator('.bar-actions').boundingBox())!;
    expect(overlap(heading, actions)).toBe(false);
    for (const name of ['Done', 'Not now', 'take control']) expect(await person.page.getByRole('button', { name }).isVisible()).toBe(true);
    await person.page.getByRole('button', { name: 'Not now' }).click();
    await call;
    await person.close();
  });
});
