import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import type { Agent } from './helpers/server.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { forgeTest } from './fixtures.js';

let agent: Agent;
let person: TestViewer;
let pageId = '';

const it = forgeTest({}, { '/': '<title>Login</title><input id="pw" type="password"><button>Sign in</button>' });

it.beforeAll(async ({ forge, pages, agentFor }) => {
  agent = await agentFor('default/shop/lead');
  await agent.call('browser_navigate', { url: pages.url });
  pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1];
  person = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await person?.close();
});

function handOff(message: string, progress: string[] = []): Promise<{ text: string; isError: boolean; structured?: unknown }> {
  return agent.client.callTool({ name: 'browser_hand_off', arguments: { page_id: pageId, message } }, undefined, {
    timeout: 120_000,
    onprogress: (p) => { progress.push(String(p.message ?? '')); },
  }).then((r) => ({ text: (r.content as Array<{ text: string }>)[0].text, isError: r.isError === true, structured: r.structuredContent }));
}

describe('a browser hand-off', () => {
  it('a page id no tab carries is refused with the tabs as they stand', async () => {
    const r = await agent.call('browser_hand_off', { page_id: 'p-00000000', message: 'sign in' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('the page p-00000000 is not one of your tabs');
    expect(r.text).toContain(pageId);
  });

  it('parks the ask, holds the tab, and returns Done with the person\'s note', async () => {
    const progress: string[] = [];
    const call = handOff('Please sign in', progress);
    const asks = await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1);
    const ask = (asks.asks as Array<Record<string, unknown>>)[0];
    expect(ask).toMatchObject({ seat: 'default/shop/lead', pageId, tab: 1, message: 'Please sign in' });
    expect((await agent.call('browser_tabs', { action: 'list' })).text).toContain('· held');
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'done', note: 'signed in as ada', id: 3 });
    expect((await person.next('answered')).id).toBe(3);
    const r = await call;
    expect(r.text).toContain('The person answered Done on tab 1');
    expect(r.text).toContain('Their note: "signed in as ada". The page');
    expect(r.structured).toMatchObject({ answer: 'done', note: 'signed in as ada', page_id: pageId });
    expect(progress[0]).toMatch(/parked: the person can open the page from the strip or at http:\/\/127\.0\.0\.1:\d+\/handoff\/h\./);
    expect((await agent.call('browser_tabs', { action: 'list' })).text).not.toContain('· held');
  });

  it('Not now returns not_now; feedback needs words and returns them as the person\'s', async () => {
    let call = handOff('Approve the payment');
    let ask = ((await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1)).asks as Array<Record<string, unknown>>)[0];
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'not_now' });
    expect((await call).structured).toMatchObject({ answer: 'not_now' });

    call = handOff('Check the cart');
    ask = ((await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1)).asks as Array<Record<string, unknown>>)[0];
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'feedback' });
    expect((await person.next('error')).message).toBe('send feedback needs words in the note');
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'feedback', note: 'wrong size' });
    const r = await call;
    expect(r.text).toContain('The person says something is off on tab 1');
    expect(r.structured).toMatchObject({ answer: 'feedback', note: 'wrong size' });
  });

  it('a signed link shows only its page and answers only its hand-off; a forged link is refused', async ({ forge }) => {
    const progress: string[] = [];
    const call = handOff('Sign in on your phone', progress);
    await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 50));
    const link = /(http:\/\/\S+\/handoff\/(h\.\S+))/.exec(progress[0])!;
    const token = link[2];
    const phone = await openViewer(forge.info.port, token);
    phone.send({ t: 'tabs' });
    expect((await phone.next('error')).message).toBe('a hand-off link opens its own page only; "tabs" is not part of it');
    phone.send({ t: 'attach', tab: 99, w: 393, h: 700 });
    const view = await phone.next('view');
    expect(view.pageId).toBe(pageId);
    const mine = (phone.messages.find((m) => m.t === 'handoffs')!.asks as Array<Record<string, unknown>>);
    expect(mine.length).toBe(1);
    phone.send({ t: 'answer', handoff: 'ho-someother', answer: 'done' });
    expect((await phone.next('error')).message).toBe('this link answers its own hand-off only');
    phone.send({ t: 'answer', handoff: mine[0].id as string, answer: 'done' });
    expect((await call).structured).toMatchObject({ answer: 'done' });
    await phone.close();

    const forged = new WebSocket(`ws://127.0.0.1:${forge.info.port}/ws?token=${token.slice(0, -3)}abc`);
    const status = await new Promise<number>((resolve) => forged.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });
});
