/**
 * A person opens the terminal of a seat that exists: made-up seats start no shell, a watcher
 * starts none, and a person who may take control starts the terminal of a seat an agent holds.
 */
import { describe, expect } from 'vitest';
import type { RunningServer } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openViewer } from './helpers/viewer.js';
import { knownSecret, tokenCli } from './helpers/tokens.js';

const it = forgeTest();

it.beforeAll(async ({ agentFor }) => {
  await agentFor('default/shop/lead');
});

/** A watch-only person token, once the server has read it. */
const watchToken = (forge: RunningServer): Promise<string> => knownSecret(forge, tokenCli(forge, 'new', '--watch', '--name', 'w'));

describe('starting a terminal from a viewer', () => {
  it('thirty made-up seats start no shell: each is refused in words', async ({ viewer: v }) => {
    for (let i = 0; i < 30; i++) {
      v.send({ t: 'term_attach', seat: `default/made-up/s${i}`, cols: 80, rows: 24, id: i });
      expect((await v.next('error', (m) => m.id === i)).message).toBe(`seat default/made-up/s${i} has no session here; its terminal can be opened once its agent connects`);
    }
    v.send({ t: 'ping', id: 99 });
    await v.next('pong', (m) => m.id === 99);
    const rows = v.messages.filter((m) => m.t === 'terminals').at(-1)!;
    expect(rows.rows).toEqual([]);
  });

  it('a watcher cannot start a seat\'s terminal; a person who may take control can', async ({ forge, viewer: v }) => {
    const w = await openViewer(forge.info.port, await watchToken(forge));
    w.send({ t: 'term_attach', seat: 'default/shop/lead', cols: 80, rows: 24, id: 1 });
    expect((await w.next('error', (m) => m.id === 1)).message).toBe('no terminal runs for default/shop/lead; starting one needs a token that may take control');
    v.send({ t: 'term_attach', seat: 'default/shop/lead', cols: 80, rows: 24 });
    const view = await v.next('term_view');
    expect(view.seat).toBe('default/shop/lead');
    // Once it runs, the watcher may watch it.
    w.send({ t: 'term_attach', seat: 'default/shop/lead', cols: 80, rows: 24 });
    expect((await w.next('term_view')).term).toBe(view.term);
    await w.close();
  });
});
