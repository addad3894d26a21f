/**
 * A hand-off parked through node alpha is a person's to answer from any node: a viewer on gamma
 * sees the ask and answers Done, Not now or feedback with the words alpha's rules give, and the
 * agent on alpha gets the answer; the link alpha prints opens the page on alpha, and on gamma too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, handOff, type RunningServer, type Agent } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { startCluster, type TestCluster } from './helpers/cluster.js';

const SEAT = 'default/shop/lead';

let cluster: TestCluster<'alpha' | 'beta' | 'gamma'>;
let alpha: RunningServer;
let gamma: RunningServer;
let pages: PageServer;
let agent: Agent;
let person: TestViewer;
let pageId = '';

type Ask = Record<string, unknown>;
const onlyAsk = async (v: TestViewer): Promise<Ask> => ((await v.next('handoffs', (m) => (m.asks as unknown[]).length === 1)).asks as Ask[])[0]!;

beforeAll(async () => {
  pages = await servePages({ '/': '<title>Login</title><input id="pw" type="password"><button>Sign in</button>' });
  cluster = await startCluster(['alpha', 'beta', 'gamma']);
  ({ alpha, gamma } = cluster.nodes);
  agent = await connectAgent(alpha, SEAT);
  expect((await agent.call('browser_navigate', { url: pages.url })).isError).toBe(false);
  pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
  person = await openViewer(gamma.info.port, gamma.info.viewer_token);
});

afterAll(async () => {
  await person?.close();
  await agent?.close();
  await cluster?.stop();
  await pages?.close();
});

describe('a hand-off parked on one node, answered from another', () => {
  it('the viewer on gamma sees the ask, and its Done with a note reaches the agent on alpha', async () => {
    const progress: string[] = [];
    const call = handOff(agent, pageId, 'Please sign in', progress);
    const ask = await onlyAsk(person);
    expect(ask).toMatchObject({ seat: SEAT, pageId, tab: 1, message: 'Please sign in' });
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'done', note: 'signed in as ada', id: 7 });
    expect((await person.next('answered')).id).toBe(7);
    const r = await call;
    expect(r.text).toContain('The person answered Done on tab 1');
    expect(r.structured).toMatchObject({ answer: 'done', note: 'signed in as ada', page_id: pageId });
    expect(progress[0]).toContain(`parked: the person can open the page from the strip or at http://127.0.0.1:${alpha.info.port}/handoff/h.`);
  });

  it('Not now and feedback from gamma, with alpha\'s refusal of feedback without words', async () => {
    let call = handOff(agent, pageId, 'Approve the payment');
    let ask = await onlyAsk(person);
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'not_now' });
    expect((await call).structured).toMatchObject({ answer: 'not_now' });

    call = handOff(agent, pageId, 'Check the cart');
    ask = await onlyAsk(person);
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'feedback' });
    expect((await person.next('error')).message).toBe('send feedback needs words in the note');
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'feedback', note: 'wrong size' });
    expect((await call).structured).toMatchObject({ answer: 'feedback', note: 'wrong size' });
    person.send({ t: 'answer', handoff: ask.id as string, answer: 'done' });
    expect((await person.next('error')).message).toBe(`the hand-off ${ask.id as string} is not waiting any more`);
  });

  it('the link alpha prints opens its page on alpha and answers its hand-off, seen from gamma', async () => {
    const progress: string[] = [];
    const call = handOff(agent, pageId, 'Sign in on your phone', progress);
    await onlyAsk(person);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 50));
    const link = /http:\/\/127\.0\.0\.1:(\d+)\/handoff\/(h\.\S+)/.exec(progress[0]!)!;
    expect(Number(link[1])).toBe(alpha.info.port);
    const phone = await openViewer(alpha.info.port, link[2]!);
    try {
      phone.send({ t: 'attach', tab: 99, w: 393, h: 700 });
      expect((await phone.next('view')).pageId).toBe(pageId);
      await phone.waitFrames(1);
      const mine = (phone.messages.find((m) => m.t === 'handoffs')!.asks as Ask[]);
      phone.send({ t: 'answer', handoff: mine[0]!.id as string, answer: 'done' });
      expect((await call).structured).toMatchObject({ answer: 'done' });
      // The viewer on gamma hears that nothing waits any more.
      await person.next('handoffs', (m) => (m.asks as unknown[]).length === 0);
    } finally {
      await phone.close();
    }
  });

  it('the link alpha prints opens its page on gamma, and Done from there reaches the agent on alpha', async () => {
    const progress: string[] = [];
    const call = handOff(agent, pageId, 'Approve on your phone', progress);
    await onlyAsk(person);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 50));
    const token = /\/handoff\/(h\.\S+)/.exec(progress[0]!)![1]!;
    const phone = await openViewer(gamma.info.port, token);
    const closed = new Promise<{ code: number; reason: string }>((r) => phone.ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    try {
      phone.send({ t: 'attach', tab: 99, w: 393, h: 700 });
      expect((await phone.next('view')).pageId).toBe(pageId);
      await phone.waitFrames(1);
      const mine = (phone.messages.find((m) => m.t === 'handoffs')!.asks as Ask[]);
      expect(mine.map((a) => a.message)).toEqual(['Approve on your phone']);
      phone.send({ t: 'answer', handoff: mine[0]!.id as string, answer: 'done', note: 'approved' });
      expect((await call).structured).toMatchObject({ answer: 'done', note: 'approved' });
      // The link dies with its answer, on gamma as on alpha.
      expect(await closed).toEqual({ code: 4403, reason: 'this hand-off is over (answered or withdrawn); its link opens nothing more' });
    } finally {
      await phone.close();
    }
  });
});
