/**
 * A browser hand-off through the web client: the agent parks an ask on its tab, the person sees
 * the card, opens the page, signs in on it, and answers on the bar; the agent's call returns the
 * answer with the note. The note line keeps its words across a lower; a link opens one page.
 */
import { describe, expect } from 'vitest';
import { createServer, connect, type Socket } from 'node:net';
import type { Browser } from 'playwright-core';
import { handOff as handOffTo, type RunningServer, type Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { PHONE_393, openClient, picturePoint, surfaceLive, type ClientPage } from './helpers/client-page.js';

let forge: RunningServer;
let agent: Agent;
let browser: Browser;
let person: ClientPage;
let pageId = '';

const LOGIN = `<title>Login</title><style>body{margin:0;font-size:28px}
#pw{position:fixed;left:10vw;top:10vh;width:60vw;height:12vh;font-size:28px}
#go{position:fixed;left:10vw;top:30vh;width:60vw;height:12vh;font-size:28px}</style>
<input id="pw" type="password"><button id="go" onclick="if (event.isTrusted && pw.value === 'hunter2') document.title = 'signed in'">Sign in</button>`;

function handOff(message: string, progress: string[] = []): ReturnType<typeof handOffTo> {
  return handOffTo(agent, pageId, message, progress);
}

const it = forgeTest({}, { '/': LOGIN });

it.beforeAll(async ({ forge: f, pages, agentFor, clientBrowser }) => {
  forge = f;
  agent = await agentFor('default/shop/lead');
  await agent.call('browser_navigate', { url: pages.url });
  pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
  browser = clientBrowser;
  person = await openClient(browser, forge.info.viewer_url);
});

it.afterAll(async () => {
  await person?.close();
});

describe('a hand-off in the web client', () => {
  it('the person opens the card, signs in on the page, and Done returns the note to the agent', async () => {
    const call = handOff('Please sign in');
    const card = person.page.locator('.handoff-card');
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('.card-title').textContent()).toBe('browser hand-off · tab 1');
    expect(await card.locator('.card-words').textContent()).toBe('Please sign in');
    await person.shot('handoff-card');
    await card.getByRole('button', { name: 'Open browser' }).click();
    await person.page.getByRole('dialog', { name: 'browser hand-off · tab 1' }).waitFor();
    await person.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    expect(await person.page.locator('.ask-words').textContent()).toBe('Please sign in');
    // While the takeover is up the card leaves the answers to the bar.
    expect(await card.locator('.card-open').textContent()).toContain('open over the window');
    await person.page.getByRole('button', { name: 'take control' }).click();
    await person.page.locator('.bar-control[aria-pressed="true"]').waitFor();
    await person.page.locator('.surface-canvas[data-frames-drawn]').waitFor();
    await person.page.waitForTimeout(500);
    const pw = await picturePoint(person.page, 0.4, 0.16);
    await person.page.mouse.click(pw.x, pw.y);
    await person.page.keyboard.type('hunter2');
    const go = await picturePoint(person.page, 0.4, 0.36);
    await person.page.mouse.click(go.x, go.y);
    await expect.poll(async () => (await agent.call('browser_evaluate', { function: '() => document.title' })).text, { timeout: 10_000 }).toContain('signed in');
    expect(await person.page.getByRole('button', { name: 'send feedback' }).isVisible()).toBe(false);
    await person.page.getByRole('textbox', { name: 'a note for the agent (optional)' }).fill('signed in as ada');
    expect(await person.page.getByRole('button', { name: 'send feedback' }).isVisible()).toBe(true);
    await person.shot('handoff-bar');
    await person.page.getByRole('button', { name: 'Done' }).click();
    const r = await call;
    expect(r.text).toContain('The person answered Done on tab 1');
    expect(r.structured).toMatchObject({ answer: 'done', note: 'signed in as ada', page_id: pageId });
    // The answer lowers the takeover, and the card is gone with the ask.
    await expect.poll(() => person.page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => card.count()).toBe(0);
  });

  it('a lowered takeover hands the note to the chat\'s draft and a raise shows it again; Not now takes the words, leaving the draft empty', async () => {
    const call = handOff('Approve the order');
    const card = person.page.locator('.handoff-card');
    await card.getByRole('button', { name: 'Open browser' }).click();
    await person.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    await person.page.getByRole('textbox', { name: 'a note for the agent (optional)' }).fill('the total looks wrong');
    await person.page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => person.page.getByRole('dialog').count()).toBe(0);
    // Lowering hands the words to the chat's draft, and the card says so.
    expect(await card.locator('.card-note').textContent()).toContain('chat\'s draft');
    expect(await card.locator('.card-note').textContent()).toContain('the total looks wrong');
    const draft = person.page.getByRole('textbox', { name: 'the chat\'s draft' });
    expect(await draft.inputValue()).toBe('the total looks wrong');
    await card.getByRole('button', { name: 'Open browser' }).click();
    await person.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    expect(await person.page.getByRole('textbox', { name: 'a note for the agent (optional)' }).inputValue()).toBe('the total looks wrong');
    await person.page.getByRole('button', { name: 'Not now' }).click();
    const r = await call;
    expect(r.structured).toMatchObject({ answer: 'not_now', note: 'the total looks wrong' });
    // The answer took the words to the agent: the draft gets nothing.
    await expect.poll(() => draft.inputValue()).toBe('');
  });

  it('send feedback goes with the note as the person\'s words', async () => {
    const call = handOff('Check the cart');
    await person.page.locator('.handoff-card').getByRole('button', { name: 'Open browser' }).click();
    await person.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    await person.page.getByRole('textbox', { name: 'a note for the agent (optional)' }).fill('two of the same item');
    await person.page.getByRole('button', { name: 'send feedback' }).click();
    const r = await call;
    expect(r.structured).toMatchObject({ answer: 'feedback', note: 'two of the same item' });
  });

  it('a hand-off link opens that one page on a phone, with Done and Not now on screen', async () => {
    const progress: string[] = [];
    const call = handOff('Enter the code', progress);
    await expect.poll(() => progress.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const link = /(http:\/\/127\.0\.0\.1:\d+\/handoff\/\S+)/.exec(progress[0]!)![1]!;
    const context = await browser.newContext({ viewport: { width: PHONE_393.width, height: PHONE_393.height }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    try {
      const phone = await context.newPage();
      const logFrom = forge.output().length;
      await phone.goto(link);
      await surfaceLive(phone, forge.output, logFrom);
      await phone.getByRole('dialog', { name: 'browser hand-off · tab 1' }).waitFor({ timeout: 20_000 });
      expect(await phone.locator('.strip').count()).toBe(0);
      expect(await phone.locator('.picker').isVisible()).toBe(false);
      for (const name of ['Done', 'Not now']) {
        const b = (await phone.getByRole('button', { name, exact: true }).boundingBox())!;
        expect(b.height).toBeGreaterThanOrEqual(44);
        expect(b.x).toBeGreaterThanOrEqual(0);
        expect(b.x + b.width).toBeLessThanOrEqual(PHONE_393.width);
        expect(b.y + b.height).toBeLessThanOrEqual(PHONE_393.height);
      }
      await phone.screenshot({ path: 'test/artifacts/handoff-link-393.png' });
      await phone.getByRole('button', { name: 'Done', exact: true }).click();
      const r = await call;
      expect(r.structured).toMatchObject({ answer: 'done' });
    } finally {
      await context.close();
    }
  });

  it('an answer the connection did not take says Not sent, and the words stay in the field', async () => {
    // The page reaches forge through a loopback proxy that can cut its sockets (a real TCP cut).
    const proxy = await cuttableProxy(forge.info.port);
    const viaProxy = forge.info.viewer_url.replace(`:${forge.info.port}/`, `:${proxy.port}/`);
    const c = await openClient(browser, viaProxy);
    try {
      const call = handOff('Confirm the address');
      await c.page.locator('.handoff-card').getByRole('button', { name: 'Open browser' }).click();
      await c.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
      const note = c.page.getByRole('textbox', { name: 'a note for the agent (optional)' });
      await note.fill('the flat number is missing');
      proxy.cut();
      await c.page.locator('.link-state[data-state="down"]').waitFor({ timeout: 10_000 });
      await c.page.getByRole('button', { name: 'Done' }).click();
      const line = c.page.locator('.ask-line');
      await expect.poll(() => line.textContent()).toBe('Not sent - the connection is down.');
      expect(await line.getAttribute('data-tone')).toBe('refusal');
      expect(await note.inputValue()).toBe('the flat number is missing');
      expect(await c.page.getByRole('dialog').count()).toBe(1);
      await c.shot('handoff-not-sent');
      // The connection comes back: the same words answer, and the ask was parked all along.
      const logFrom = forge.output().length;
      proxy.restore();
      await c.page.locator('.link-state[data-state="open"]').waitFor({ timeout: 20_000 });
      await surfaceLive(c.page, forge.output, logFrom);
      await c.page.getByRole('button', { name: 'Done' }).click();
      const r = await call;
      expect(r.structured).toMatchObject({ answer: 'done', note: 'the flat number is missing' });
    } finally {
      await c.close();
      await proxy.close();
    }
  });
});

/** A loopback TCP proxy to `port` whose sockets can be cut (and new ones refused) until restored. */
async function cuttableProxy(port: number): Promise<{ port: number; cut: () => void; restore: () => void; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) { client.destroy(); return; }
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => undefined); }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => { open = false; for (const s of sockets) s.destroy(); },
    restore: () => { open = true; },
    close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}
