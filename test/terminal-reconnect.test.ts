/**
 * A raised terminal lives through a dropped connection: while the socket is down the surface says
 * so and takes no keys (the server ended this client's hold when the socket died), and once the
 * client reconnects it attaches again by itself, repainted with what the shell wrote meanwhile,
 * and take control types again. The drop is a real one: every connection through a loopback link
 * is cut and new ones refused for a while. The full client and the bare terminal page
 * (`/terminal.html`) both hold it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useClientRig } from './helpers/client-rig.js';
import { openClient } from './helpers/client-page.js';
import { slowLink, type SlowLink } from './helpers/slow-link.js';
import { pageScreen } from './helpers/term-screen.js';
import { TERM_STATE } from '../src/shared/terminal.js';

const SEAT = 'default/proj/lead';

describe('a terminal through a dropped connection', () => {
  const rig = useClientRig(SEAT, '[terminal]\nshell = "/bin/bash"\n');
  let link: SlowLink | undefined;

  beforeAll(async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo ready' } });
    link = await slowLink(rig.server.info.port, 0);
  });
  afterAll(async () => { await link?.close(); });

  it('says the connection is down, takes no keys, and attaches again by itself once it is back', async () => {
    const viewerUrl = new URL(rig.server.info.viewer_url);
    viewerUrl.port = String(link!.port);
    viewerUrl.searchParams.set('seat', SEAT);
    const client = await openClient(rig.browser, viewerUrl.toString());
    const { page } = client;
    const stateLine = (): Promise<string | null> => page.locator('.takeover[data-surface="terminal"] .term-state').textContent();
    await page.locator('#terminal-row').click();
    await expect.poll(stateLine, { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
    await page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(stateLine, { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo before-the-drop');
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nbefore-the-drop\n/);

    link!.down(true);
    await expect.poll(stateLine, { timeout: 10_000 }).toBe(`${TERM_STATE.connectionDown}…`);
    expect(await page.getByRole('button', { name: 'take control' }).isDisabled()).toBe(true);
    await page.keyboard.type('echo typed-while-down');
    // The hold ended with the socket: the agent's calls go through, and what it runs is drawn later.
    await expect.poll(async () => (await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo while-you-were-away' } })).isError ?? false, { timeout: 10_000 }).toBe(false);

    link!.down(false);
    await expect.poll(stateLine, { timeout: 20_000 }).toBe(TERM_STATE.viewOnly);
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nwhile-you-were-away\n/);
    await page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(stateLine, { timeout: 10_000 }).toBe(TERM_STATE.youHaveControl);
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo after-the-drop');
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nafter-the-drop\n/);
    expect(await pageScreen(page)).not.toContain('typed-while-down');
    await client.close();
  });

  it('on the bare terminal page too: it says the connection is down and attaches again by itself', async () => {
    const url = `http://127.0.0.1:${link!.port}/terminal.html?token=${rig.server.info.viewer_token}&seat=${SEAT}`;
    const context = await rig.browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    const stateLine = (): Promise<string | null> => page.locator('.term-state').textContent();
    await expect.poll(stateLine, { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);

    link!.down(true);
    await expect.poll(stateLine, { timeout: 10_000 }).toBe(`${TERM_STATE.connectionDown}…`);
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo written-while-the-page-was-away' } });

    link!.down(false);
    await expect.poll(stateLine, { timeout: 20_000 }).toBe(TERM_STATE.viewOnly);
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nwritten-while-the-page-was-away\n/);
    await context.close();
  });
});
