/**
 * The page's editing chords while it holds the keys: select all, undo, and copy and cut, whose
 * text lands on the person's own clipboard (not the host's), with Ctrl or a Mac's Cmd; a paste arrives as text; a
 * modifier held alone reaches the page as its own key.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { DESKTOP, picturePoint, showFirstTab, takeControl, type ClientPage } from './helpers/client-page.js';

let agent: Agent;
let person: ClientPage;

const FIELD = `<title>Field</title><style>body{margin:0}
#f{display:block;box-sizing:border-box;width:100vw;height:40vh;font-size:32px}</style>
<textarea id="f" aria-label="field">first words</textarea>`;

const value = async (): Promise<string> => JSON.parse(JSON.parse(/### Result\n(.*)/.exec((await agent.call('browser_evaluate', { function: '() => JSON.stringify(document.getElementById("f").value)' })).text)![1]!)) as string;
const clipboard = (): Promise<string> => person.page.evaluate(() => navigator.clipboard.readText());

const it = forgeTest({}, { '/': FIELD });

it.beforeAll(async ({ forge, pages, clientBrowser, agentFor }) => {
  agent = await agentFor('default/chords/lead');
  await agent.call('browser_navigate', { url: pages.url });
  person = await showFirstTab(clientBrowser, forge.info.viewer_url, DESKTOP);
  await person.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(forge.info.viewer_url).origin });
  await takeControl(person);
});

it.afterAll(async () => {
  await person?.close().catch(() => undefined);
});

describe('the page\'s editing chords', () => {
  it('select all and copy put the page\'s text on the person\'s clipboard', async () => {
    const p = await picturePoint(person.page, 0.5, 0.2);
    await person.page.mouse.click(p.x, p.y);
    await person.page.keyboard.press('Control+A');
    await person.page.keyboard.press('Control+C');
    await expect.poll(clipboard, { timeout: 10_000 }).toBe('first words');
  });

  it('cut takes the selection out of the page and onto the clipboard', async () => {
    await person.page.evaluate(() => navigator.clipboard.writeText(''));
    await person.page.keyboard.press('Control+A');
    await person.page.keyboard.press('Control+X');
    await expect.poll(clipboard, { timeout: 10_000 }).toBe('first words');
    await expect.poll(value, { timeout: 10_000 }).toBe('');
  });

  it('undo brings the cut text back', async () => {
    await person.page.keyboard.press('Control+Z');
    await expect.poll(value, { timeout: 10_000 }).toBe('first words');
  });

  it('a paste arrives as text in place of the selection', async () => {
    await person.page.keyboard.press('Control+A');
    await person.page.evaluate(() => navigator.clipboard.writeText('pasted words'));
    await person.page.keyboard.press('Control+V');
    await expect.poll(value, { timeout: 10_000 }).toBe('pasted words');
  });

  it('on a Mac, Cmd+A, Cmd+X, Cmd+Z and Cmd+Shift+Z select, cut, undo and redo as Ctrl does', async () => {
    await person.page.evaluate(() => navigator.clipboard.writeText(''));
    await person.page.keyboard.press('Meta+A');
    await person.page.keyboard.press('Meta+X');
    await expect.poll(clipboard, { timeout: 10_000 }).toBe('pasted words');
    await expect.poll(value, { timeout: 10_000 }).toBe('');
    await person.page.keyboard.press('Meta+Z');
    await expect.poll(value, { timeout: 10_000 }).toBe('pasted words');
    await person.page.keyboard.press('Meta+Shift+Z');
    await expect.poll(value, { timeout: 10_000 }).toBe('');
  });

  it('a modifier held alone reaches the page as its own trusted key events', async () => {
    await agent.call('browser_evaluate', { function: '() => { window.keys = []; for (const t of ["keydown", "keyup"]) addEventListener(t, (e) => e.isTrusted && window.keys.push(t + " " + e.key), true); return "ok"; }' });
    await person.page.keyboard.down('Shift');
    await person.page.keyboard.up('Shift');
    await person.page.keyboard.down('Control');
    await person.page.keyboard.up('Control');
    const keys = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => JSON.stringify(window.keys)' })).text;
    await expect.poll(keys, { timeout: 10_000 }).toContain('keydown Shift');
    await expect.poll(keys, { timeout: 10_000 }).toContain('keyup Control');
  });
});
