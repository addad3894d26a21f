/**
 * A person who presses take control and types at once loses nothing to the round trip: the keys
 * typed before the server's answer arrives reach the shell, behind the take. The page reaches the
 * server over a real slow link (a loopback relay that holds the server's bytes back).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useClientRig } from './helpers/client-rig.js';
import { TERM_STATE } from '../src/shared/terminal.js';
import { slowLink, type SlowLink } from './helpers/slow-link.js';
import { pageScreen } from './helpers/term-screen.js';

const SEAT = 'default/proj/lead';
/** The server's answers' delay while the person takes control, ms: far longer than typing the line takes. */
const LATENCY_MS = 3000;

describe('typing straight after take control', () => {
  const rig = useClientRig(SEAT);
  let url = '';
  let link: SlowLink | undefined;

  beforeAll(async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'true' } });
    link = await slowLink(rig.server.info.port, 0);
    url = `http://127.0.0.1:${link.port}/terminal.html?token=${rig.server.info.viewer_token}&seat=${SEAT}`;
  });
  afterAll(async () => { await link?.close(); });

  it('keys typed before the server answers the take reach the shell, in order', async () => {
    const page = await rig.browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(url);
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
    link!.delayMs = LATENCY_MS;
    await page.getByRole('button', { name: 'take control' }).click();
    await page.keyboard.type('echo typed-at-once-$((6*7))');
    await page.keyboard.press('Enter');
    // The answer is still on its way: the keys went out before it.
    expect(await page.locator('.term-state').textContent()).toBe(TERM_STATE.viewOnly);
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.youHaveControl);
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\ntyped-at-once-42\n/);
    await page.close();
  });
});
