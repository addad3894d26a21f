/**
 * A paste past the server's bound is refused in words by the client, before anything is sent:
 * on the page and in the terminal alike the person reads why, nothing is typed, and the
 * connection stays up (a paste past the socket's own 16 MiB bound used to end it, and the client
 * reconnected without a word). What fits is typed as before.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import { mcpClient, type RunningServer, type Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { DESKTOP, picturePoint, showFirstTab, takeControl, type ClientPage } from './helpers/client-page.js';
import { INPUT_TEXT_MAX_CHARS, SOCKET_INBOUND_MAX_BYTES, TERM_INPUT_MAX_CHARS, pasteTooLong } from '../src/shared/limits.js';
import { TERM_STATE } from '../src/shared/terminal.js';
import { pageScreen } from './helpers/term-screen.js';

const SEAT = 'default/paste/lead';
/** Characters in the big paste: past the socket's own bound, so the server could never answer it. */
const BIG = SOCKET_INBOUND_MAX_BYTES + 1024 * 1024;

const FIELD = `<title>Field</title><style>body{margin:0}
#f{display:block;box-sizing:border-box;width:100vw;height:40vh;font-size:32px}</style>
<textarea id="f" aria-label="field"></textarea>`;

let forge: RunningServer;
let agent: Agent;
let browser: Browser;

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' }, { '/': FIELD });

it.beforeAll(async ({ forge: f, pages, clientBrowser, agentFor }) => {
  forge = f;
  browser = clientBrowser;
  agent = await agentFor(SEAT);
  await agent.call('browser_navigate', { url: pages.url });
});

describe('a paste too long for the page', () => {
  let person: ClientPage;
  const value = async (): Promise<string> => JSON.parse(JSON.parse(/### Result\n(.*)/.exec((await agent.call('browser_evaluate', { function: '() => JSON.stringify(document.getElementById("f").value)' })).text)![1]!)) as string;

  it.beforeAll(async () => {
    person = await showFirstTab(browser, forge.info.viewer_url, DESKTOP);
    await person.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(forge.info.viewer_url).origin });
    await takeControl(person);
    const p = await picturePoint(person.page, 0.5, 0.2);
    await person.page.mouse.click(p.x, p.y);
  });
  it.afterAll(async () => { await person?.close(); });

  it('is refused in words on the bar, types nothing, and keeps the connection', async () => {
    let sockets = 0;
    person.page.on('websocket', () => { sockets++; });
    await person.page.evaluate((n) => navigator.clipboard.writeText('x'.repeat(n)), BIG);
    await person.page.keyboard.press('Control+V');
    await expect.poll(() => person.page.locator('.bar-notice').textContent(), { timeout: 10_000 }).toBe(pasteTooLong(INPUT_TEXT_MAX_CHARS));
    await person.page.evaluate((n) => navigator.clipboard.writeText('y'.repeat(n)), INPUT_TEXT_MAX_CHARS + 1);
    await person.page.keyboard.press('Control+V');
    await person.page.evaluate(() => navigator.clipboard.writeText('what fits'));
    await person.page.keyboard.press('Control+V');
    await expect.poll(value, { timeout: 10_000 }).toBe('what fits');
    expect(sockets).toBe(0);
  });
});

describe('a paste too long for the terminal', () => {
  it('is refused in words on the state line, types nothing, and keeps the connection', async () => {
    const term = await mcpClient(forge.info, SEAT);
    await term.callTool({ name: 'terminal__run', arguments: { command: 'true' } });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`${new URL(forge.info.viewer_url).origin}/terminal.html?token=${forge.info.viewer_token}&seat=${SEAT}`);
    await page.getByRole('button', { name: 'take control' }).click();
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 15_000 }).toBe(TERM_STATE.youHaveControl);
    let sockets = 0;
    page.on('websocket', () => { sockets++; });
    // xterm takes a paste from the paste event on its text field, as a person's paste arrives.
    const paste = (text: string, times = 1): Promise<void> => page.evaluate(([t, n]) => {
      const dt = new DataTransfer();
      dt.setData('text/plain', t.repeat(n));
      document.querySelector('.xterm-helper-textarea')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    }, [text, times] as const);
    await paste('z', BIG);
    await expect.poll(() => page.locator('.term-state').textContent(), { timeout: 10_000 }).toBe(pasteTooLong(TERM_INPUT_MAX_CHARS));
    await paste('echo what-fits-$((6*7))');
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => pageScreen(page), { timeout: 10_000 }).toMatch(/\nwhat-fits-42\n/);
    expect(await pageScreen(page)).not.toContain('zzzz');
    expect(sockets).toBe(0);
    await page.close();
    await term.close();
  });
});
