/**
 * A phone's keyboard follows the page's focus: the server tells the controller whether the
 * focused element takes typing, so a tap on a text field raises the keyboard and its text reaches
 * the field, and a tap on plain page lowers it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startForge, connectAgent, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { PHONE_393, launchClientBrowser, picturePoint, showFirstTab, takeControl, type ClientPage } from './helpers/client-page.js';

let forge: RunningServer;
let pages: PageServer;
let agent: Agent;
let browser: Browser;
let phone: ClientPage;

const FORM = `<title>Form</title><style>body{margin:0;font-size:24px}
#name{display:block;box-sizing:border-box;width:100vw;height:30vh;font-size:32px}
#plain{height:60vh;background:#eee}</style>
<input id="name" aria-label="name"><div id="plain">plain text, nothing to type into</div>`;

const evaluate = async (fn: string): Promise<string> => (await agent.call('browser_evaluate', { function: fn })).text;

beforeAll(async () => {
  forge = await startForge();
  pages = await servePages({ '/': FORM });
  browser = await launchClientBrowser();
  agent = await connectAgent(forge, 'default/keyboard/lead');
  await agent.call('browser_navigate', { url: pages.url });
  phone = await showFirstTab(browser, forge.info.viewer_url, PHONE_393);
  await takeControl(phone);
});

afterAll(async () => {
  await phone?.close().catch(() => undefined);
  await browser?.close();
  await agent?.close();
  await forge?.stop();
  await pages?.close();
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
