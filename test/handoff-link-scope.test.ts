/**
 * A hand-off link is a capability for one page of one parked hand-off: it cannot reach a
 * terminal, another seat's hand-off or the tab list, learns no seat's name, and dies with its
 * answer — its sockets closed, its control role gone, and the link refused from then on.
 */
import { describe, expect } from 'vitest';
import { handOff, type RunningServer, type Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

let forge: RunningServer;
let shop: Agent;
let ops: Agent;
let person: TestViewer;
let pageId = '';

const it = forgeTest({}, { '/': '<title>Login</title><input id="pw" type="password"><button>Sign in</button>' });

it.beforeAll(async ({ forge: f, pages, agentFor }) => {
  forge = f;
  shop = await agentFor('default/shop/worker');
  ops = await agentFor('default/ops/lead');
  await shop.call('browser_navigate', { url: pages.url });
  pageId = /page (p-[0-9a-f]{8})/.exec((await shop.call('browser_tabs', { action: 'list' })).text)![1];
  person = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await person?.close();
});

/** Parks a hand-off on the shop's tab and returns its link's token and the pending answer. */
async function parkLink(): Promise<{ token: string; call: Promise<{ structured?: unknown }> }> {
  const progress: string[] = [];
  const call = handOff(shop, pageId, 'Please sign in', progress);
  while (progress.length === 0) await new Promise((r) => setTimeout(r, 50));
  const token = /\/handoff\/(h\.\S+)/.exec(progress[0]!)![1]!;
  return { token, call };
}

const LINK_REFUSAL = (kind: string): string => `a hand-off link opens its own page only; "${kind}" is not part of it`;

describe('a browser hand-off link', () => {
  it('reaches no terminal: attach, control, typing and another seat\'s terminal hand-off are refused, and no shell starts', async () => {
    const { token, call } = await parkLink();
    const phone = await openViewer(forge.info.port, token);
    phone.send({ t: 'term_attach', seat: 'default/ops/lead', cols: 80, rows: 24, id: 1 });
    expect((await phone.next('error', (m) => m.id === 1)).message).toBe(LINK_REFUSAL('term_attach'));
    phone.send({ t: 'term_control', term: 1, take: true, id: 2 });
    expect((await phone.next('error', (m) => m.id === 2)).message).toBe(LINK_REFUSAL('term_control'));
    phone.send({ t: 'term_input', term: 1, data: 'id > out.txt\r', id: 3 });
    expect((await phone.next('error', (m) => m.id === 3)).message).toBe(LINK_REFUSAL('term_input'));

    // Another seat parks a terminal hand-off: the link cannot answer it for that seat's person.
    const opsAnswer = ops.client.callTool({ name: 'terminal_hand_off', arguments: { reason: 'type the sudo password' } }, undefined, { timeout: 120_000 });
    const rows = await person.next('terminals', (m) => (m.rows as Array<{ seat: string; handOff: unknown }>).some((r) => r.seat === 'default/ops/lead' && r.handOff));
    const term = (rows.rows as Array<{ seat: string; term: number }>).find((r) => r.seat === 'default/ops/lead')!.term;
    phone.send({ t: 'term_answer', term, answer: 'done', id: 4 });
    expect((await phone.next('error', (m) => m.id === 4)).message).toBe(LINK_REFUSAL('term_answer'));
    person.send({ t: 'term_answer', term, answer: 'not_now' });
    const opsResult = await opsAnswer;
    expect(JSON.stringify(opsResult.content)).toContain('Not now');

    // Only the ops seat's own terminal (its hand-off opened it) runs: the link started none.
    const now = await person.next('terminals', (m) => !(m.rows as Array<{ handOff: unknown }>).some((r) => r.handOff));
    expect((now.rows as Array<{ seat: string }>).map((r) => r.seat)).toEqual(['default/ops/lead']);

    const asks = phone.messages.find((m) => m.t === 'handoffs')!.asks as Array<{ id: string }>;
    phone.send({ t: 'answer', handoff: asks[0]!.id, answer: 'not_now' });
    await call;
    await phone.close();
  });

  it('learns no seat\'s name on connect: no terminal rows, no tab list, only its own hand-off', async () => {
    const { token, call } = await parkLink();
    const phone = await openViewer(forge.info.port, token);
    const handoffs = await phone.next('handoffs');
    expect((handoffs.asks as unknown[]).length).toBe(1);
    phone.send({ t: 'tabs', id: 5 });
    expect((await phone.next('error', (m) => m.id === 5)).message).toBe(LINK_REFUSAL('tabs'));
    phone.send({ t: 'tabs', every: true, id: 7 });
    expect((await phone.next('error', (m) => m.id === 7)).message).toBe(LINK_REFUSAL('tabs'));
    // Nor a picture of any tab, its own hand-off's page included: the home's thumbnails are not the link's.
    phone.send({ t: 'thumbs', pageIds: [pageId], id: 8 });
    expect((await phone.next('error', (m) => m.id === 8)).message).toBe(LINK_REFUSAL('thumbs'));
    phone.send({ t: 'ping', id: 6 });
    await phone.next('pong', (m) => m.id === 6);
    expect(phone.messages.filter((m) => m.t === 'terminals' || m.t === 'tabs' || m.t === 'thumb')).toEqual([]);
    expect(JSON.stringify(phone.messages)).not.toContain('default/ops/lead');
    phone.send({ t: 'answer', handoff: (handoffs.asks as Array<{ id: string }>)[0]!.id, answer: 'not_now' });
    await call;
    await phone.close();
  });

  it('dies with its answer: its socket is closed, the control it held is let go, and the link is refused from then on', async () => {
    const { token, call } = await parkLink();
    const phone = await openViewer(forge.info.port, token);
    const closed = new Promise<{ code: number; reason: string }>((r) => phone.ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    phone.send({ t: 'attach', w: 800, h: 600 });
    const view = await phone.next('view');
    phone.send({ t: 'control', take: true });
    await phone.next('view', (m) => m.controller === view.you);

    person.send({ t: 'attach', pageId, w: 1280, h: 720 });
    await person.next('view', (m) => m.pageId === pageId && m.controller === view.you);

    const asks = phone.messages.find((m) => m.t === 'handoffs')!.asks as Array<{ id: string }>;
    phone.send({ t: 'answer', handoff: asks[0]!.id, answer: 'done' });
    expect((await call).structured).toMatchObject({ answer: 'done' });
    expect(await closed).toEqual({ code: 4403, reason: 'this hand-off is over (answered or withdrawn); its link opens nothing more' });
    // The page's role is free again: the person at the strip is told, and may take it.
    await person.next('view', (m) => m.pageId === pageId && m.controller === null);
    person.send({ t: 'control', take: true });
    await person.next('view', (m) => m.pageId === pageId && m.controller === person.messages.find((x) => x.t === 'view')!.you);
    person.send({ t: 'control', take: false });

    const again = await openViewer(forge.info.port, token);
    const refused = await new Promise<{ code: number; reason: string }>((r) => again.ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    expect(refused.code).toBe(4403);
    expect(again.messages.filter((m) => m.t === 'handoffs' || m.t === 'view')).toEqual([]);
  });
});
