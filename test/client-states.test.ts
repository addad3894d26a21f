/**
 * Every state the hand-off and the takeover draw, at a desktop's 1280x800 and a phone's 430x932
 * and 393x852: the card in the chat, the ask on the bar with its note, another tab with the ask
 * parked, the strip's panel with a held tab and a waiting dialog, the host's death under the
 * surface, and the hand-off's refusal once its page is gone. Each is screenshotted into
 * test/artifacts/ and checked for what a person sees: the words, and every control on screen
 * at a reachable size.
 */
import { describe, expect } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { connectAgent, handOff, type RunningServer, type Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { hostBrowserPid } from './helpers/processes.js';
import { DESKTOP, PHONE_393, PHONE_430, openClient, type ClientPage, type ClientSize } from './helpers/client-page.js';

let forge: RunningServer;
let pages: TestPages;
let browser: Browser;

const it = forgeTest({}, {
  '/': '<title>Checkout</title><style>body{font-size:24px}</style><h1>Checkout</h1><button>Pay</button>',
  '/other': '<title>Receipts</title><h1>Receipts</h1>',
});

it.beforeAll(({ forge: f, pages: p, clientBrowser }) => {
  forge = f;
  pages = p;
  browser = clientBrowser;
});

/** The smallest side a control may have: a finger's 44 px on a phone, a pointer's 32 px on the desktop. */
const minTarget = (size: ClientSize): number => (size.touch ? 44 : 32);

/** Every visible button under `scope`: off-screen or too small ones named, so a failure says which. */
async function unreachable(page: Page, scope: string, min: number): Promise<string[]> {
  return page.evaluate(([scope, min]) => {
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    return [...document.querySelectorAll<HTMLElement>(`${scope} button`)]
      .filter((b) => b.offsetParent !== null)
      .flatMap((b) => {
        const r = b.getBoundingClientRect();
        const name = b.getAttribute('aria-label') ?? b.textContent ?? '?';
        const bad: string[] = [];
        if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) bad.push(`${name} is off screen (${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)})`);
        if (r.width < (min as number) - 0.5 || r.height < (min as number) - 0.5) bad.push(`${name} is ${Math.round(r.width)}x${Math.round(r.height)}`);
        return bad;
      });
  }, [scope, min] as const);
}

async function onScreen(l: Locator): Promise<boolean> {
  const box = await l.boundingBox();
  const vp = l.page().viewportSize()!;
  return box !== null && box.x >= -0.5 && box.y >= -0.5 && box.x + box.width <= vp.width + 0.5 && box.y + box.height <= vp.height + 0.5;
}

describe.each([['1280x800', DESKTOP], ['430x932', PHONE_430], ['393x852', PHONE_393]])('at %s', (label, size) => {
  let agent: Agent;
  let person: ClientPage;
  let asked = '';
  let answer: ReturnType<typeof handOff>;
  const shot = (state: string) => person.shot(`states-${label}-${state}`);
  const state = () => person.page.locator('.surface-state');

  it.beforeAll(async () => {
    // A session of its own, not the fixture's: it ends with this size, and its seat's tabs with it.
    agent = await connectAgent(forge, `default/states-${size.width}/lead`);
    await agent.call('browser_navigate', { url: pages.url });
    asked = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
    await agent.call('browser_tabs', { action: 'new', url: `${pages.url}other` });
    person = await openClient(browser, forge.info.viewer_url, size);
    answer = handOff(agent, asked, 'Please check the order and pay');
  });

  it.afterAll(async () => {
    await person?.close();
    await agent?.close();
  });

  it('the hand-off\'s card names the tab, carries the words, and its actions are on screen', async () => {
    const card = person.page.locator('.handoff-card');
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('.card-title').textContent()).toMatch(/^browser hand-off · tab \d+$/);
    expect(await card.locator('.card-words').textContent()).toBe('Please check the order and pay');
    await shot('card');
    expect(await unreachable(person.page, '.handoff-card', minTarget(size))).toEqual([]);
  });

  it('the ask on the bar offers Done and Not now on its page, and send feedback once the note has words', async () => {
    await person.page.locator('.handoff-card').getByRole('button', { name: 'Open browser' }).click();
    await person.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    const bar = person.page.locator('.bar');
    expect(await person.page.locator('#takeover-title').textContent()).toMatch(/^browser hand-off · tab \d+$/);
    expect(await bar.locator('.ask-words').textContent()).toBe('Please check the order and pay');
    expect(await bar.getByRole('button', { name: 'send feedback' }).isVisible()).toBe(false);
    await bar.getByRole('textbox', { name: 'a note for the agent (optional)' }).fill('the address is old');
    for (const name of ['Done', 'send feedback', 'Not now']) expect(await bar.getByRole('button', { name }).isVisible()).toBe(true);
    await shot('ask-with-note');
    expect(await unreachable(person.page, '.bar', minTarget(size))).toEqual([]);
    expect(await onScreen(bar.getByRole('textbox', { name: 'a note for the agent (optional)' }))).toBe(true);
  });

  it('on another tab the note line stays with its words, and the answers wait for the asked page', async () => {
    await person.page.locator('.picker-button').click();
    await person.page.getByRole('menuitemradio', { name: /Receipts/ }).click();
    await expect.poll(() => person.page.locator('#takeover-title').textContent(), { timeout: 20_000 }).toMatch(/^the browser · default\/default$/);
    const bar = person.page.locator('.bar');
    expect(await bar.getByRole('textbox', { name: 'a note for the agent (optional)' }).inputValue()).toBe('the address is old');
    expect(await bar.getByRole('button', { name: 'Done' }).isVisible()).toBe(false);
    expect(await bar.getByRole('button', { name: 'Not now' }).isVisible()).toBe(false);
    await shot('ask-on-another-tab');
    expect(await unreachable(person.page, '.bar', minTarget(size))).toEqual([]);
  });

  it('the strip\'s panel lists the tabs with the held mark and a waiting dialog, and the engine line', async () => {
    await person.page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => person.page.getByRole('dialog').count()).toBe(0);
    const dialog = agent.call('browser_evaluate', { function: '() => { alert("Leave the page?"); return 1; }' });
    await person.page.locator('#browser-row').click();
    const panel = person.page.locator('#browser-panel');
    await expect.poll(() => panel.locator('.tab-row[data-state="held"]').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => panel.locator('.tab-dialog').textContent(), { timeout: 15_000 }).toBe('alert waiting');
    expect(await panel.locator('.tab-dialog').getAttribute('title')).toBe('Leave the page?');
    expect(await panel.locator('.engine-line').textContent()).toBe('the server\'s own Chromium, on every client');
    expect(await panel.locator('.tab-owner').first().textContent()).toBe(`default/states-${size.width}/lead`);
    await shot('strip-panel');
    expect(await unreachable(person.page, '.strip', minTarget(size))).toEqual([]);
    expect(await onScreen(panel)).toBe(true);
    await dialog;
    await agent.call('browser_handle_dialog', { accept: true });
    await person.page.locator('#browser-row').click();
  });

  it('a host that dies under the surface says so in its own sentence, and the ask stays answerable', async () => {
    await person.page.locator('.handoff-card').getByRole('button', { name: 'Open browser' }).click();
    await person.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    const pid = hostBrowserPid(forge.stateDir);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => state().textContent(), { timeout: 20_000 })
      .toBe(`the browser host exited (signal 9; pid ${pid}); the next call brings it back`);
    const bar = person.page.locator('.bar');
    for (const name of ['try again', 'Done', 'Not now']) expect(await bar.getByRole('button', { name }).isVisible()).toBe(true);
    expect(await bar.getByRole('textbox', { name: 'a note for the agent (optional)' }).inputValue()).toBe('the address is old');
    await shot('host-died');
    expect(await unreachable(person.page, '.bar', minTarget(size))).toEqual([]);
    expect(await onScreen(state())).toBe(true);
  });

  it('try again says the page the hand-off named is gone, in the server\'s words, and Done still answers', async () => {
    await person.page.locator('.bar').getByRole('button', { name: 'try again' }).click();
    await expect.poll(() => state().textContent(), { timeout: 20_000 })
      .toBe(`the page the hand-off named (${asked}) is gone from profile default/default; tabs open now: none`);
    await shot('handoff-page-gone');
    expect(await onScreen(state())).toBe(true);
    await person.page.locator('.bar').getByRole('button', { name: 'Done' }).click();
    const r = await answer;
    expect(r.structured).toMatchObject({ answer: 'done', note: 'the address is old' });
    await expect.poll(() => person.page.getByRole('dialog').count()).toBe(0);
  });
});
