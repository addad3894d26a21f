/**
 * The web client's terminal surface in real headless Chromium against a real server: it shows
 * the shell's prompt, typing after take control reaches the shell, Ctrl-C, Ctrl-Z, Ctrl-L and
 * Ctrl-D typed in the browser reach the shell untouched, and a phone-sized viewport shows the touch
 * key bar, whose keys and sticky Ctrl reach the shell.
 *
 * A person presses Ctrl-C or Ctrl-Z once they see the command running, and types on once the
 * prompt is back; the tests wait for the same two moments (the command in the terminal's
 * foreground group, the prompt's done mark). Faster than that, the terminal itself drops keys on
 * any machine: a Ctrl-C before the shell has handed the terminal to its command interrupts the
 * shell instead, and the shell discards what was typed ahead of its interrupt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useClientRig } from './helpers/client-rig.js';
import { TERM_STATE } from '../src/shared/terminal.js';
import { inForeground } from './helpers/processes.js';
import { pageScreen, promptOnPage } from './helpers/term-screen.js';

const SEAT = 'default/proj/lead';

describe('the terminal surface in the web client', () => {
  const rig = useClientRig(SEAT);
  let url = '';

  const running = (cmd: string): Promise<void> => expect.poll(() => inForeground(cmd), { timeout: 10_000 }).toBe(true);

  beforeAll(async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo hello-from-the-agent' } });
    url = `http://127.0.0.1:${rig.server.info.port}/terminal.html?token=${rig.server.info.viewer_token}&seat=${SEAT}`;
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
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toContain('hello-from-the-agent');
    expect(await pageScreen(page)).toContain(prompt);
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
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toContain('typed-in-the-browser-42');
    await page.getByRole('button', { name: 'release control' }).click();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.viewOnly);
    // The keyboard is the agent's again: it reads what the person typed, and nothing typed while viewing.
    const r = await rig.agent.callTool({ name: 'terminal__read', arguments: {} });
    expect((r.structuredContent as { text: string }).text).toContain('typed-in-the-browser-42');
    expect((r.structuredContent as { text: string }).text).not.toContain('ignored-while-viewing');
    await page.close();
  });

  it('Ctrl-C, Ctrl-Z, Ctrl-L and Ctrl-D typed in the browser reach the shell untouched', async () => {
    const page = await rig.browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(url);
    await page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    // Ctrl-C interrupts: the echo typed after it runs at once, not after the sleep.
    await page.keyboard.type('sleep 4040');
    await page.keyboard.press('Enter');
    await running('sleep 4040');
    await page.keyboard.press('Control+C');
    await promptOnPage(page);
    await page.keyboard.type('echo after-ctrl-c');
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nafter-ctrl-c\n/);
    // Ctrl-Z stops the job: the shell says so.
    await page.keyboard.type('sleep 4141');
    await page.keyboard.press('Enter');
    await running('sleep 4141');
    await page.keyboard.press('Control+Z');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/Stopped.*sleep 4141/);
    await promptOnPage(page);
    // A stopped job takes the TERM once continued; bash reports its end at a later prompt.
    await page.keyboard.type('kill %1; kill -CONT %1');
    await page.keyboard.press('Enter');
    await page.keyboard.type('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/Terminated.*sleep 4141/);
    // Ctrl-L clears the screen: what was on it is gone from the visible screen.
    await page.keyboard.type('echo before-ctrl-l');
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nbefore-ctrl-l\n/);
    await page.keyboard.press('Control+L');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).not.toContain('before-ctrl-l');
    // Ctrl-D on an empty line ends the shell.
    await page.keyboard.press('Control+D');
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toMatch(new RegExp(`^${TERM_STATE.exited}`));
    // The line keeps saying so.
    await page.waitForTimeout(500);
    expect(await page.locator('.term-state').textContent()).toMatch(new RegExp(`^${TERM_STATE.exited}`));
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
      // Each key's word is shown whole, not cut at the key's edge ("Ctrl" at a 44 px key).
      expect(await b.evaluate((e) => {
        const words = document.createRange();
        words.selectNodeContents(e);
        const cs = getComputedStyle(e);
        return words.getBoundingClientRect().width <= e.clientWidth - Number.parseFloat(cs.paddingLeft) - Number.parseFloat(cs.paddingRight) + 0.5;
      })).toBe(true);
    }
    // Inert until the keyboard is taken; then the bar's keys and its sticky Ctrl reach the shell.
    expect(await bar.getByRole('button', { name: 'Escape' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'take control' }).tap();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('sleep 4242');
    await bar.getByRole('button', { name: 'Enter' }).tap();
    await running('sleep 4242');
    await bar.getByRole('button', { name: 'Control C' }).tap();
    await promptOnPage(page);
    await page.keyboard.type('echo from-the-bar');
    await bar.getByRole('button', { name: 'Enter' }).tap();
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nfrom-the-bar\n/);
    await promptOnPage(page);
    // Up recalls the last command; Enter runs it again.
    await bar.getByRole('button', { name: 'Up' }).tap();
    await bar.getByRole('button', { name: 'Enter' }).tap();
    await expect.poll(async () => (await pageScreen(page)).split('\nfrom-the-bar\n').length, { timeout: 10_000 }).toBe(3);
    await promptOnPage(page);
    // Sticky Ctrl, then a typed c: an interrupt, as Ctrl-C is.
    await page.keyboard.type('sleep 4343');
    await bar.getByRole('button', { name: 'Enter' }).tap();
    await running('sleep 4343');
    await bar.getByRole('button', { name: 'Ctrl' }).tap();
    expect(await bar.getByRole('button', { name: 'Ctrl' }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.type('c');
    expect(await bar.getByRole('button', { name: 'Ctrl' }).getAttribute('aria-pressed')).toBe('false');
    await promptOnPage(page);
    await page.keyboard.type('echo sticky-done');
    await bar.getByRole('button', { name: 'Enter' }).tap();
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nsticky-done\n/);
    await rig.agent.callTool({ name: 'terminal__close', arguments: {} }).catch(() => undefined);
    await ctx.close();
  });
});
