/**
 * A phone's keyboard follows the page's focus: the server tells the controller whether the
 * focused element takes typing, so a tap on a text field raises the keyboard and its text reaches
 * the field, and a tap on plain page lowers it again.
 */
import { describe, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { PHONE_393, picturePoint, showFirstTab, takeControl, type ClientPage } from './helpers/client-page.js';
import { forgeTest } from './fixtures.js';

let pages: PageServer;
let agent: Agent;
let browser: Browser;
let phone: ClientPage;

const FORM = `<title>Form</title><style>body{margin:0;font-size:24px}
#name{display:block;box-sizing:border-box;width:100vw;height:30vh;font-size:32px}
#plain{height:60vh;background:#eee}</style>
<input id="name" aria-label="name"><div id="plain">plain text, nothing to type into</div>`;

const evaluate = async (fn: string): Promise<string> => (await agent.call('browser_evaluate', { function: fn })).text;

const it = forgeTest({}, { '/': FORM });

it.beforeAll(async ({ forge, pages: served, agentFor, clientBrowser }) => {
  pages = served;
  browser = clientBrowser;
  agent = await agentFor('default/keyboard/lead');
  await agent.call('browser_navigate', { url: pages.url });
  phone = await showFirstTab(browser, forge.info.viewer_url, PHONE_393);
  await takeControl(phone);
});

it.afterAll(async () => {
  await phone?.close().catch(() => undefined);
});

const keyboardMode = () => phone.page.locator('.key-sink').getAttribute('inputmode');

describe('the phone\'s keyboard', () => {
  it('is down while the page\'s focus takes no typing', async () => {
    expect(await keyboardMode()).toBe('none');
  });

  it('comes up on a tap on a text field, and its text reaches that field', async () => {
    const p = await picturePoint(phone.page, 0.5, 0.15);
    await phone.page.touchscreen.tap(p.x, p.y);
    await expect.poll(keyboardMode, { timeout: 10_000 }).toBe('text');
    expect(await phone.page.evaluate(() => document.activeElement?.className)).toBe('key-sink');
    await phone.page.keyboard.insertText('hello phone');
    await expect.poll(() => evaluate('() => document.getElementById("name").value'), { timeout: 10_000 }).toContain('hello phone');
    await phone.shot('phone-393-keyboard-up');
  });

  it('goes down on a tap on plain page', async () => {
    const p = await picturePoint(phone.page, 0.5, 0.7);
    await phone.page.touchscreen.tap(p.x, p.y);
    await expect.poll(keyboardMode, { timeout: 10_000 }).toBe('none');
    expect(await evaluate('() => document.activeElement === document.body')).toContain('true');
  });
});
