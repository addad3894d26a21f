/**
 * A session that ends takes its seat's tabs with it, except a tab a parked hand-off holds: that
 * ask stays parked for the person, and the tab goes when the ask resolves.
 */
import { describe, expect } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { handOff } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

let person: TestViewer;

const it = forgeTest({}, { '/': '<title>Login</title><input type="password">', '/other': '<title>Other</title>' });

it.beforeAll(async ({ forge }) => {
  person = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await person?.close();
});

type Tabs = { tabs: Array<{ pageId: string; state: string }> };
const pageIdsOf = (m: Record<string, unknown>): string[] => (m as unknown as Tabs).tabs.map((t) => t.pageId);

describe('a seat whose session ended', () => {
  it('loses its tabs at once, except the one a parked hand-off holds, and that ask stays parked', async ({ pages, agentFor }) => {
    const agent = await agentFor('default/gone/lead');
    await agent.call('browser_navigate', { url: pages.url });
    const asked = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
    await agent.call('browser_tabs', { action: 'new', url: `${pages.url}other` });
    person.send({ t: 'tabs', seat: 'default/gone/lead' });
    await person.next('tabs', (m) => pageIdsOf(m).length === 2);
    void handOff(agent, asked, 'Sign in, please').catch(() => undefined);
    const parked = await person.next('handoffs', (m) => (m.asks as unknown[]).length === 1);
    await (agent.client.transport as StreamableHTTPClientTransport).terminateSession();
    const after = await person.next('tabs', (m) => pageIdsOf(m).length === 1);
    expect(pageIdsOf(after)).toEqual([asked]);
    expect((after as unknown as Tabs).tabs[0]!.state).toBe('held');
    person.send({ t: 'handoffs' });
    const still = await person.next('handoffs');
    expect(still.asks).toEqual(parked.asks);
  });

  it('the held tab goes once the person answers', async () => {
    const ask = (person.messages.filter((m) => m.t === 'handoffs').at(-1)!.asks as Array<{ id: string }>)[0]!;
    person.send({ t: 'answer', handoff: ask.id, answer: 'done', note: '', id: 7 });
    await person.next('answered');
    await person.next('handoffs', (m) => (m.asks as unknown[]).length === 0);
    await person.next('tabs', (m) => pageIdsOf(m).length === 0);
  });
});
