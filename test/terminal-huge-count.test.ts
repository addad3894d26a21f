/**
 * A program that prints a scroll or delete-lines count of two billion, in a form the byte
 * stream's clamp cannot read (a control inside the count), freezes nothing: its own terminal
 * goes on, another seat's terminal answers, and the person's page drawing it stays live.
 */
import { describe, expect } from 'vitest';
import { test as it } from './fixtures.js';
import { pageScreen } from './helpers/term-screen.js';

const HOSTILE = 'default/counts/lead';
const OTHER = 'default/counts/other';

describe('a huge repeat count in a program\'s output', () => {
  it('its terminal prints on past it, another seat\'s terminal answers, and the page showing it stays live', async ({ forge, agentFor, clientBrowser }) => {
    const a = await agentFor(HOSTILE);
    const b = await agentFor(OTHER);
    await a.call('terminal__run', { command: 'echo ready' });
    const page = await clientBrowser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`http://127.0.0.1:${forge.info.port}/terminal.html?token=${forge.info.viewer_token}&seat=${HOSTILE}`);
    await expect.poll(() => pageScreen(page), { timeout: 15_000 }).toContain('ready');
    // ^W (ETB) inside the count: the parser runs the control and reads on, a count of 214483648.
    const run = await a.call('terminal__run', { command: "printf '\\033[214\\027483648M\\033[2147483647T\\302\\2332147483647S'; echo after-the-count" });
    expect(run.isError).toBe(false);
    expect(run.text).toContain('after-the-count');
    const other = await b.call('terminal__run', { command: 'echo the-other-seat-answers' });
    expect(other.isError).toBe(false);
    expect(other.text).toContain('the-other-seat-answers');
    await expect.poll(() => pageScreen(page), { timeout: 15_000 }).toContain('after-the-count');
    await page.close();
  });
});
