/**
 * Copying from the terminal as a Linux or Windows terminal does: with text selected, Ctrl+Shift+C
 * (and Ctrl+Insert) puts it on the person's clipboard and sends nothing to the shell, for the
 * keyboard holder and for a watcher alike.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useClientRig } from './helpers/client-rig.js';
import { pageScreen } from './helpers/term-screen.js';
import { TERM_STATE } from '../src/shared/terminal.js';

const SEAT = 'default/proj/lead';

/** Drags across the first row of the page's terminal: the selection starts at its first cell. */
async function selectFirstRow(page: Page): Promise<void> {
  const box = (await page.locator('.xterm-rows > div').first().boundingBox())!;
  await page.mouse.move(box.x + 1, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 400, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
}

describe('copying from the terminal', () => {
  const rig = useClientRig(SEAT, '[terminal]\nshell = "/bin/bash"\n');
  let url = '';

  beforeAll(async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'clear; echo copy-me-please' } });
    url = `http://127.0.0.1:${rig.server.info.port}/terminal.html?token=${rig.server.info.viewer_token}&seat=${SEAT}`;
  });

  const open = async (): Promise<Page> => {
    const ctx = await rig.browser.newContext({ viewport: { width: 1200, height: 800 } });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    const page = await ctx.newPage();
    await page.goto(url);
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toContain('copy-me-please');
    return page;
  };
  const clipboard = (page: Page): Promise<string> => page.evaluate(() => navigator.clipboard.readText());

  it('Ctrl+Shift+C copies the holder\'s selection and sends nothing to the shell', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('sleep 0.5; echo slept-through');
    await page.keyboard.press('Enter');
    await selectFirstRow(page);
    await page.keyboard.press('Control+Shift+C');
    await expect.poll(() => clipboard(page), { timeout: 5000 }).toMatch(/copy-me-please/);
    // Nothing reached the shell: the command ran to its end, uninterrupted.
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nslept-through\n/);
    expect(await pageScreen(page)).not.toMatch(/\^C/);
    await page.getByRole('button', { name: 'release control' }).click();
    await page.context().close();
  });

  it('a watcher copies its selection with Ctrl+Insert', async () => {
    const page = await open();
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await selectFirstRow(page);
    await page.keyboard.press('Control+Insert');
    await expect.poll(() => clipboard(page), { timeout: 5000 }).toMatch(/copy-me-please/);
    await page.context().close();
  });
});
