/**
 * The terminal's screen as the person sees it in the web client: while a person holds the
 * keyboard the agent's tools are refused, so tests read what the holder's own page drew.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** The rows the page's terminal shows, as text (no-break spaces read as spaces). */
export async function pageScreen(page: Page): Promise<string> {
  return (await page.locator('.xterm-rows').first().innerText()).replace(/\u00a0/g, ' ');
}

/** Waits until the page's last drawn line is a prompt (it ends in `$` or `#`): the shell reads the next line. */
export async function promptOnPage(page: Page): Promise<void> {
  await expect.poll(async () => (await pageScreen(page)).split('\n').filter((l) => l.trim()).pop() ?? '', { timeout: 10_000 }).toMatch(/[#$]\s*$/);
}
