/**
 * The web client's terminal surface in real headless Chromium against a real server: it shows
 * the shell's prompt, typing after take control reaches the shell, and a phone-sized viewport
 * shows the touch key bar.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useClientRig } from './helpers/client-rig.js';
import { TERM_STATE } from '../src/shared/terminal.js';

const SEAT = 'default/proj/lead';

describe('the terminal surface in the web client', () => {
  const rig = useClientRig(SEAT);
  let url = '';

  beforeAll(async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo hello-from-the-agent' } });
    url = `http://127.0.0.1:${rig.server.info.port}/terminal.html?token=${rig.server.info.token}&seat=${SEAT}`;
  });

  it('shows the shell\'s prompt and what the agent ran, as a dialog with a live state line', async () => {
    const page = await rig.browser.newPage({ viewport: { width: 1200, height: 800 } });
    const scripts: string[] = [];
    page.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname); });
    await page.goto(url);
    const dialog = page.locator('[role="dialog"][aria-modal="true"]');
    await dialog.waitFor();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
    expect(await page.locator('.term-state').getAttribute('aria-live')).toBe('polite');
    // xterm.js is its own chunk, fetched when the terminal is raised, not part of the page's entry.
    expect(scripts.some((p) => /^\/surface-[A-Z0-9]+\.js$/.test(p))).toBe(true);
    expect(await page.locator('.term-title').textContent()).toMatch(/^terminal \d+ · \w+ · \//);
    const read = await rig.agent.callTool({ name: 'terminal__read', arguments: {} });
    const prompt = (read.structuredContent as { text: string }).text.split('\n').pop()!.trim();
    expect(prompt.length).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.xterm-rows').innerText(), { timeout: 10_000 }).toContain('hello-from-the-agent');
    expect((await page.locator('.xterm-rows').innerText()).replace(/\u00a0/g, ' ')).toContain(prompt);
    // Drawn in the client's token set: the terminal's ground is the --term-background token.
    const ground = await page.evaluate(() => {
      const probe = document.createElement('div');
      probe.style.color = 'var(--term-background)';
      document.body.append(probe);
      const want = getComputedStyle(probe).color;
      probe.remove();
      // xterm paints its ground on the scrollable element around the rows.
      return { want, got: getComputedStyle(document.querySelector('.xterm-scrollable-element')!).backgroundColor };
    });
    expect(ground.got).toBe(ground.want);
    await page.close();
  });

  it('typing after take control reaches the shell', async () => {
    const page = await rig.browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(url);
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
    await page.keyboard.type('echo ignored-while-viewing');
    await page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo typed-in-the-browser-$((6*7))');
    await page.keyboard.press('Enter');
    await expect.poll(async () => {
      const r = await rig.agent.callTool({ name: 'terminal__read', arguments: {} });
      return (r.structuredContent as { text: string }).text;
    }, { timeout: 10_000 }).toContain('typed-in-the-browser-42');
    const r = await rig.agent.callTool({ name: 'terminal__read', arguments: {} });
    expect((r.structuredContent as { text: string }).text).not.toContain('ignored-while-viewing');
    await page.getByRole('button', { name: 'release control' }).click();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.viewOnly);
    await page.close();
  });

  it('a phone-sized viewport shows the touch key bar with 44 px targets', async () => {
    const ctx = await rig.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });
    const page = await ctx.newPage();
    await page.goto(url);
    const bar = page.getByRole('toolbar', { name: 'terminal keys' });
    await bar.waitFor({ timeout: 15_000 });
    const labels = await bar.locator('button').allTextContents();
    expect(labels).toEqual(['Ctrl', 'Alt', 'Esc', 'Tab', '^C', '←', '↑', '↓', '→', '⏎', '/', '-', '|', '~']);
    for (const b of await bar.locator('button').all()) {
      const box = (await b.boundingBox())!;
      expect(box.width).toBeGreaterThanOrEqual(44);
      expect(box.height).toBeGreaterThanOrEqual(44);
    }
    // Inert until the keyboard is taken; then Ctrl-C from the bar reaches the shell.
    expect(await bar.getByRole('button', { name: 'Escape' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'take control' }).tap();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await rig.agent.callTool({ name: 'terminal__close', arguments: {} }).catch(() => undefined);
    await ctx.close();
  });
});
