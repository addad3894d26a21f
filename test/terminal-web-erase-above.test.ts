/**
 * A program's erase above (CSI 1 J) from the bottom-right corner of a fresh screen leaves the web
 * client's terminal drawing, and the server's screen model too: xterm.js's own handler throws
 * there, and every byte after it was never drawn. A real server and shell, the web client in real
 * headless Chromium.
 */
import { describe, expect, it } from 'vitest';
import { useClientRig } from './helpers/client-rig.js';
import { TERM_STATE } from '../src/shared/terminal.js';
import { pageScreen } from './helpers/term-screen.js';

const SEAT = 'default/proj/erase';

describe('an erase above from the bottom-right corner of the terminal', () => {
  const rig = useClientRig(SEAT);

  it('leaves the person\'s terminal and the agent\'s read drawing what the program prints after it', async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'clear' } });
    const page = await rig.browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`http://127.0.0.1:${rig.server.info.port}/terminal.html?token=${rig.server.info.viewer_token}&seat=${SEAT}`);
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.viewOnly);
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: "printf '\\033[999;999H\\033[1J\\033[H'; sleep 0.5; echo drawn-after-the-erase" } });
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toContain('drawn-after-the-erase');
    const read = await rig.agent.callTool({ name: 'terminal__read', arguments: {} });
    expect((read.structuredContent as { text: string }).text).toContain('drawn-after-the-erase');
    await page.close();
  });
});
