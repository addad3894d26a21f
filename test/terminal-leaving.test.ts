/**
 * Leaving the terminal surface the person's way, in real headless Chromium against a real server:
 * the browser's Back lowers it, Cmd+W never reaches the shell, and on a phone (where no window or
 * tab takes Cmd+W) Cmd+W lowers it, on its own page and under the main client's takeover bar.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openClient, DESKTOP, PHONE_430 } from './helpers/client-page.js';
import { useClientRig } from './helpers/client-rig.js';
import { TERM_STATE } from '../src/shared/terminal.js';
import { pageScreen } from './helpers/term-screen.js';

const SEAT = 'default/proj/lead';
const LOWERED = 'the terminal is lowered; reload to raise it again';

describe('leaving the terminal surface', () => {
  const rig = useClientRig(SEAT, '[terminal]\nshell = "/bin/bash"\n');
  let pageUrl = '';

  beforeAll(async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo ready' } });
    pageUrl = `http://127.0.0.1:${rig.server.info.port}/terminal.html?token=${rig.server.info.viewer_token}&seat=${SEAT}`;
  });

  const screen = async (): Promise<string> => {
    const r = await rig.agent.callTool({ name: 'terminal__read', arguments: {} });
    return (r.structuredContent as { text: string }).text;
  };
  const surfaceUp = async (page: Page): Promise<void> => {
    await expect.poll(() => page.locator('.term-state').first().textContent(), { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
  };

  it('on a desktop, Cmd+W reaches neither the shell nor the surface, and Back lowers the surface', async () => {
    const client = await openClient(rig.browser, `${rig.server.info.viewer_url}&seat=${SEAT}`, DESKTOP);
    const { page } = client;
    await page.goto(pageUrl);
    await surfaceUp(page);
    await page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo left');
    await page.keyboard.press('Meta+w');
    await page.keyboard.type('over');
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/^leftover$/m);
    expect(await page.locator('[role="dialog"]').count()).toBe(1);
    await page.goBack();
    await expect.poll(() => page.locator('[role="dialog"]').count(), { timeout: 5000 }).toBe(0);
    expect(await page.textContent('body')).toContain(LOWERED);
    await client.close();
  });

  it('on a phone, Cmd+W from a hardware keyboard lowers the surface on its own page', async () => {
    const client = await openClient(rig.browser, `${rig.server.info.viewer_url}&seat=${SEAT}`, PHONE_430);
    const { page } = client;
    await page.goto(pageUrl);
    await surfaceUp(page);
    const before = await screen();
    await page.keyboard.press('Meta+w');
    await expect.poll(() => page.locator('[role="dialog"]').count(), { timeout: 5000 }).toBe(0);
    expect(await page.textContent('body')).toContain(LOWERED);
    expect(await screen()).toBe(before);
    await client.close();
  });

  it('on a phone, Cmd+W lowers the terminal raised from the strip, back to the chat', async () => {
    const client = await openClient(rig.browser, `${rig.server.info.viewer_url}&seat=${SEAT}`, PHONE_430);
    const { page } = client;
    await page.locator('#terminal-row').tap();
    const layer = page.locator('.takeover[data-surface="terminal"]');
    await layer.waitFor({ timeout: 15_000 });
    await surfaceUp(page);
    await page.keyboard.press('Meta+w');
    await expect.poll(() => layer.isHidden(), { timeout: 5000 }).toBe(true);
    await client.close();
  });
});
