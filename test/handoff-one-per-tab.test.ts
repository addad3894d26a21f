/**
 * A tab carries one hand-off at a time: a second ask while the first call still waits is refused,
 * and an ask whose agent went away (its session ended) gives way to the seat's new ask, so the
 * person never sees two cards for one page, one of which answers nobody.
 */
import { describe, expect } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectAgent, handOff } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

let person: TestViewer;

const it = forgeTest({}, { '/': '<title>Login</title><input type="password"><button>Sign in</button>' });

it.beforeAll(async ({ forge }) => {
  person = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await person?.close();
});

type Ask = { id: string; pageId: string; message: string };
const asksOf = (m: Record<string, unknown>): Ask[] => m.asks as Ask[];

describe('one hand-off per tab', () => {
  it('a second ask on a tab whose first call still waits is refused naming the first, and the first still answers', async ({ pages, agentFor }) => {
    const agent = await agentFor('default/twice/lead');
    await agent.call('browser_navigate', { url: pages.url });
    const pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
    const first = handOff(agent, pageId, 'Sign in, please');
    const parked = asksOf(await person.next('handoffs', (m) => asksOf(m).length === 1));
    const again = await agent.call('browser_hand_off', { page_id: pageId, message: 'Sign in again' });
    expect(again.isError).toBe(true);
    expect(again.text).toContain(`tab 1 (${pageId}) already waits on a hand-off you asked ("Sign in, please")`);
    person.send({ t: 'handoffs' });
    expect(asksOf(await person.next('handoffs'))).toEqual(parked);
    person.send({ t: 'answer', handoff: parked[0]!.id, answer: 'done', note: '', id: 1 });
    expect((await first).text).toContain('The person answered Done on tab 1');
    await person.next('handoffs', (m) => asksOf(m).length === 0);
  });

  it('an ask whose agent went away gives way to the seat\'s new ask: one card, and the answer reaches the new call', async ({ forge, pages }) => {
    const gone = await connectAgent(forge, 'default/again/lead');
    await gone.call('browser_navigate', { url: pages.url });
    const pageId = /page (p-[0-9a-f]{8})/.exec((await gone.call('browser_tabs', { action: 'list' })).text)![1]!;
    void handOff(gone, pageId, 'Sign in, please').catch(() => undefined);
    const old = asksOf(await person.next('handoffs', (m) => asksOf(m).length === 1))[0]!;
    await (gone.client.transport as StreamableHTTPClientTransport).terminateSession();
    const back = await connectAgent(forge, 'default/again/lead');
    expect((await back.call('browser_tabs', { action: 'list' })).text).toContain(pageId);
    const next = handOff(back, pageId, 'Sign in once more');
    const now = asksOf(await person.next('handoffs', (m) => asksOf(m).length === 1 && asksOf(m)[0]!.id !== old.id));
    expect(now).toMatchObject([{ pageId, message: 'Sign in once more' }]);
    person.send({ t: 'answer', handoff: old.id, answer: 'done', note: '', id: 2 });
    expect((await person.next('error', (m) => m.id === 2)).message).toContain('is not waiting any more');
    person.send({ t: 'answer', handoff: now[0]!.id, answer: 'not_now', note: '', id: 3 });
    await person.next('answered', (m) => m.id === 3);
    expect((await next).structured).toMatchObject({ answer: 'not_now', page_id: pageId });
    expect((await back.call('browser_tabs', { action: 'list' })).text).toContain(pageId);
    await back.close();
  });
});
