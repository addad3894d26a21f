/**
 * The main web client's strip has a terminal row for its seat, in real headless Chromium against a
 * real server: a door (off) while the seat has a session and no terminal, and raising it then
 * starts one; a note on a seat with no session; it says the terminal's state (a command is running,
 * another client has the keyboard, exited, off), and raising it opens the terminal surface under
 * the takeover's bar (a chunk that fails to load lowers it, in words, and the next raise retries).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { openClient } from './helpers/client-page.js';
import { mcpClient } from './helpers/server.js';
import { useClientRig } from './helpers/client-rig.js';
import { Viewer } from './helpers/term-viewer.js';
import { TERM_STATE } from '../src/shared/terminal.js';
import { pageScreen } from './helpers/term-screen.js';

const SEAT = 'default/proj/lead';

describe('the strip\'s terminal row', () => {
  const rig = useClientRig(SEAT, '[terminal]\nshell = "/bin/bash"\n');
  let url = '';

  beforeAll(() => { url = `${rig.server.info.viewer_url}&seat=${SEAT}`; });

  it('is a note on a seat with no session, and a door (off) once the seat has one', async () => {
    const seat = 'default/proj/worker-9';
    const client = await openClient(rig.browser, `${rig.server.info.viewer_url}&seat=${seat}`);
    const row = client.page.locator('#terminal-row');
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toBe('terminalthe seat has no session yet - start it first');
    expect(await client.page.locator('button#terminal-row').count()).toBe(0);
    const worker = await mcpClient(rig.server.info, seat);
    await expect.poll(() => client.page.locator('button#terminal-row').getAttribute('data-state'), { timeout: 10_000 }).toBe('off');
    // Raising the door starts the seat's terminal.
    await row.click();
    await expect.poll(() => client.page.locator('#takeover-title').textContent(), { timeout: 15_000 }).toMatch(/^terminal \d+ · bash · \//);
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    await client.page.getByRole('button', { name: 'back to chat' }).click();
    await worker.close();
    await client.close();
  });

  it('is off while the seat has a session and no terminal, then shows the terminal and its state', async () => {
    const client = await openClient(rig.browser, url);
    const row = client.page.locator('#terminal-row');
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('off');
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo strip-row-ready' } });
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    expect(await row.locator('.row-name').textContent()).toMatch(/^terminal \d+$/);
    // A command the agent is running shows as such, and the row goes back when it ends.
    const run = rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'sleep 1.5' } });
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('a command is running');
    await run;
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    await client.close();
  });

  it('raising it opens the terminal under the takeover\'s bar, and back to chat lowers it', async () => {
    const client = await openClient(rig.browser, url);
    const { page } = client;
    await page.locator('#terminal-row').click();
    const layer = page.locator('.takeover[data-surface="terminal"]');
    await layer.waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('#takeover-title').textContent(), { timeout: 15_000 }).toMatch(/^terminal \d+ · bash · \//);
    await expect.poll(() => layer.locator('.bar .term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
    await expect.poll(() => layer.locator('.xterm-rows').innerText(), { timeout: 10_000 }).toContain('strip-row-ready');
    // One bar: the takeover's back to chat, no second one from the terminal.
    expect(await page.getByRole('button', { name: 'back to chat' }).count()).toBe(1);
    await layer.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => layer.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo from-the-strip-$((2*21))');
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toContain('from-the-strip-42');
    await page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => layer.isHidden(), { timeout: 5000 }).toBe(true);
    // Going back to chat gave the keyboard up: the agent may type again.
    await expect.poll(async () => (await rig.agent.callTool({ name: 'terminal__write', arguments: { keys: ['Ctrl-L'] } })).isError ?? false, { timeout: 5000 }).toBe(false);
    await client.close();
  });

  it('the pane chord hands the keys from the shell to the bar, and never reaches the shell', async () => {
    const client = await openClient(rig.browser, url);
    const { page } = client;
    await page.locator('#terminal-row').click();
    const layer = page.locator('.takeover[data-surface="terminal"]');
    await layer.waitFor({ timeout: 15_000 });
    await layer.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => layer.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo before-chord');
    await page.keyboard.press('Control+Alt+ArrowDown');
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('.bar')), { timeout: 5000 }).toBe(true);
    // The line the shell holds is only what was typed: the chord added nothing to it.
    await page.evaluate(() => (document.querySelector('.xterm-helper-textarea') as HTMLElement).focus());
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nbefore-chord\n/);
    await page.getByRole('button', { name: 'back to chat' }).click();
    await client.close();
  });

  it('says another client has the keyboard while someone else holds it, and off once the terminal ends', async () => {
    const client = await openClient(rig.browser, url);
    const row = client.page.locator('#terminal-row');
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    const other = await Viewer.open(rig.server.info);
    other.send({ t: 'term_attach', seat: SEAT, cols: 80, rows: 24 });
    const view = await other.until(() => other.message('term_view'), 10_000, 'term_view');
    other.send({ t: 'term_control', term: view.term, take: true });
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe(TERM_STATE.otherHasKeyboard);
    other.close();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    await rig.agent.callTool({ name: 'terminal__close', arguments: {} });
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('off');
    await client.close();
  });

  it('says exited once the shell exits, and raising it then starts a fresh terminal', async () => {
    const client = await openClient(rig.browser, url);
    const row = client.page.locator('#terminal-row');
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo before-exit' } });
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('idle');
    const before = await row.locator('.row-name').textContent();
    await rig.agent.callTool({ name: 'terminal__write', arguments: { text: 'exit', keys: ['Enter'] } });
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).toBe('exited');
    await row.click();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 15_000 }).toBe('idle');
    expect(await row.locator('.row-name').textContent()).not.toBe(before);
    await client.page.getByRole('button', { name: 'back to chat' }).click();
    await client.close();
  });

  it('a terminal chunk that fails to load lowers the surface and says so, and the next show retries', async () => {
    const client = await openClient(rig.browser, url);
    const { page } = client;
    let failed = 0;
    await page.route(/\/surface-[A-Z0-9]+\.js$/, (route) => {
      if (failed++ === 0) return route.abort('connectionreset');
      return route.continue();
    });
    const row = page.locator('#terminal-row');
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).not.toBe(null);
    await row.click();
    await expect.poll(() => page.locator('.strip-notice').textContent(), { timeout: 10_000 }).toMatch(/^the terminal could not load \(.*\); show it again to retry$/);
    const layer = page.locator('.takeover[data-surface="terminal"]');
    expect(await layer.isVisible()).toBe(false);
    await row.click();
    await expect.poll(() => page.locator('#takeover-title').textContent(), { timeout: 15_000 }).toMatch(/^terminal \d+ · bash · \//);
    expect(failed).toBeGreaterThanOrEqual(2);
    await page.getByRole('button', { name: 'back to chat' }).click();
    await client.close();
  });
});
