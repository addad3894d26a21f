/**
 * A seat's page calls on one tab run in order: sent all at once, each runs after the one before
 * it finished, so no call finds its page navigated away under it; past the queue's bound a call
 * is refused in words.
 */
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { PAGE_CALLS_QUEUED_PER_TAB_MAX } from '../dist/src/shared/limits.js';
import { hostBrowserPid } from './helpers/processes.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;

const PAGE = (n: string): string => `<title>Page ${n}</title><h1>page ${n}</h1><button onclick="document.title='clicked ${n}'">Press</button>`;

const it = forgeTest({}, { '/a': PAGE('a'), '/b': PAGE('b'), '/slow': '<title>Slow</title><p>slow</p>' });

it.beforeAll(async ({ forge: server, pages: served, agentFor }) => {
  forge = server;
  pages = served;
  a = await agentFor('default/order/lead');
  await a.call('browser_navigate', { url: `${pages.url}a` });
});

describe('one seat, one tab, many calls at once', () => {
  it('40 concurrent mixed calls (navigate, snapshot, click, evaluate) all answer without error, each reading a whole page', async () => {
    const calls: Array<Promise<{ text: string; isError: boolean }>> = [];
    const expected: Array<string | undefined> = [];
    let page = 'a';
    for (let i = 0; i < 40; i++) {
      switch (i % 4) {
        case 0:
          page = page === 'a' ? 'b' : 'a';
          calls.push(a.call('browser_navigate', { url: `${pages.url}${page}` }));
          expected.push(`page ${page}`);
          break;
        case 1:
          calls.push(a.call('browser_snapshot'));
          expected.push(`page ${page}`);
          break;
        case 2:
          calls.push(a.call('browser_click', { element: 'the button', ref: 'role=button[name="Press"]' }));
          expected.push(undefined);
          break;
        default:
          calls.push(a.call('browser_evaluate', { function: '() => document.querySelector("h1").textContent' }));
          expected.push(`"page ${page}"`);
      }
    }
    const answers = await Promise.all(calls);
    const failed = answers.map((r, i) => ({ i, ...r })).filter((r) => r.isError);
    expect(failed.map((f) => `${f.i}: ${f.text.split('\n')[0]}`)).toEqual([]);
    // Requests sent at once may reach the server in any order: each answer reads one whole page, a or b.
    answers.forEach((r, i) => { if (expected[i]) expect(r.text, `call ${i}`).toMatch(expected[i]!.startsWith('"') ? /"page [ab]"/ : /page [ab]/); });
  });

  it(`past ${PAGE_CALLS_QUEUED_PER_TAB_MAX} waiting calls on one tab, the next is refused in words`, async () => {
    // One call holds the tab for a while; the queue behind it fills.
    const holder = a.call('browser_evaluate', { function: '() => new Promise((r) => setTimeout(() => r("held"), 4000))' });
    await new Promise((r) => setTimeout(r, 300));
    const waiting = Array.from({ length: PAGE_CALLS_QUEUED_PER_TAB_MAX + 3 }, () => a.call('browser_evaluate', { function: '() => 1' }));
    const answers = await Promise.all([holder, ...waiting]);
    expect(answers[0]!.isError).toBe(false);
    const refused = answers.filter((r) => r.isError);
    expect(refused.length).toBe(3);
    for (const r of refused) expect(r.text).toMatch(new RegExp(`^tab \\d+ \\(p-[0-9a-f]{8}\\) already has ${PAGE_CALLS_QUEUED_PER_TAB_MAX} of your calls waiting`));
  });

  it('calls waiting on a tab whose host dies answer with the host\'s death sentence, and the next call works', async () => {
    const pid = hostBrowserPid(forge.stateDir);
    const holder = a.call('browser_evaluate', { function: '() => new Promise((r) => setTimeout(r, 20000))' });
    await new Promise((r) => setTimeout(r, 300));
    const waiting = Array.from({ length: 5 }, () => a.call('browser_snapshot'));
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, 'SIGKILL');
    const sentence = `the browser host exited (signal 9; pid ${pid}); the next call brings it back`;
    for (const r of await Promise.all([holder, ...waiting])) expect(r.text).toBe(sentence);
    const next = await a.call('browser_navigate', { url: `${pages.url}a` });
    expect(next.isError, next.text).toBe(false);
    expect(next.text).toContain('page a');
  });
});
