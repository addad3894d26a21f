/**
 * The terminal's directory is where its shell is now, not where it started: after a `cd`, the
 * agent's terminal__read names the new directory, the bar of a person already watching follows it
 * at the next prompt, and a person who opens the terminal later sees it from the start.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useClientRig } from './helpers/client-rig.js';

const SEAT = 'default/proj/lead';

describe('the terminal\'s directory after a cd', () => {
  const rig = useClientRig(SEAT);
  let url = '';
  const dirs: string[] = [];
  const newDir = (): string => {
    const d = realpathSync(mkdtempSync(join(tmpdir(), 'forge-test-cd-')));
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo ready' } });
    url = `http://127.0.0.1:${rig.server.info.port}/terminal.html?token=${rig.server.info.viewer_token}&seat=${SEAT}`;
  });
  afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

  it('terminal__read names the directory the shell is in now', async () => {
    const dir = newDir();
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: `cd ${dir}` } });
    const read = await rig.agent.callTool({ name: 'terminal__read', arguments: {} });
    const text = (read.content as Array<{ text: string }>)[0]!.text;
    expect(text.split('\n')[0]).toMatch(new RegExp(`^terminal \\d+ · \\S+ · ${dir}$`));
  });

  it('the bar of a person watching follows the agent\'s cd, and a person who opens it later sees the new directory', async () => {
    const page = await rig.browser.newPage({ viewport: { width: 1200, height: 800 } });
    try {
      await page.goto(url);
      const title = page.locator('.term-title');
      const before = newDir();
      await rig.agent.callTool({ name: 'terminal__run', arguments: { command: `cd ${before}` } });
      await expect.poll(() => title.textContent(), { timeout: 15_000 }).toMatch(new RegExp(` · ${before}$`));
      const after = newDir();
      await rig.agent.callTool({ name: 'terminal__run', arguments: { command: `cd ${after}` } });
      await expect.poll(() => title.textContent(), { timeout: 15_000 }).toMatch(new RegExp(` · ${after}$`));

      const later = await rig.browser.newPage({ viewport: { width: 1200, height: 800 } });
      try {
        await later.goto(url);
        await expect.poll(() => later.locator('.term-title').textContent(), { timeout: 15_000 }).toMatch(new RegExp(` · ${after}$`));
      } finally {
        await later.close();
      }
    } finally {
      await page.close();
    }
  });
});
