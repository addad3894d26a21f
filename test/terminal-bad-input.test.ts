/**
 * Bad terminal messages on the viewer socket are answered in words and change nothing.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/sh"\n' });

describe('bad terminal messages', () => {
  let v: Viewer;
  let term = 0;
  it.beforeAll(async ({ forge, agentFor }) => {
    // A person opens the terminal of a seat an agent's session holds.
    await agentFor('default/proj/lead');
    v = await Viewer.open(forge.info);
    v.send({ t: 'term_attach', seat: 'default/proj/lead', cols: 80, rows: 24 });
    term = (await v.until(() => v.message('term_view'), 15_000, 'term_view')).term as number;
  });
  it.afterAll(() => {
    v?.close();
  });

  const cases: Array<[string, () => Record<string, unknown>, RegExp]> = [
    ['a seat that is not ORG/PROJECT/LABEL', () => ({ t: 'term_attach', seat: 'nope', cols: 80, rows: 24 }), /a seat is ORG\/PROJECT\/LABEL/],
    ['a seat in another org', () => ({ t: 'term_attach', seat: 'other/proj/lead', cols: 80, rows: 24 }), /is not in org default/],
    ['a size out of bounds', () => ({ t: 'term_attach', seat: 'default/proj/lead', cols: 100000, rows: 24 }), /cols must be a whole number from 2 to 500/],
    ['a size that is not a number', () => ({ t: 'term_resize', term, cols: 'wide', rows: 24 }), /cols must be a whole number/],
    ['a terminal that does not exist', () => ({ t: 'term_input', term: 999, data: 'x' }), /terminal 999 is not open/],
    ['a keystroke from a viewer without the keyboard', () => ({ t: 'term_input', term, data: 'x' }), /view only: take control to type/],
    ['an empty keystroke from the holder', () => { v.send({ t: 'term_control', term, take: true }); return { t: 'term_input', term, data: '' }; }, /term_input needs the typed text/],
    ['an answer with no hand-off waiting', () => ({ t: 'term_answer', term, answer: 'done' }), /has no hand-off waiting/],
    ['an ack that is not a count', () => ({ t: 'term_ack', term, bytes: -5 }), /bytes must be a whole number/],
  ];

  it.each(cases)('%s is answered with a sentence', async (_name, msg, words) => {
    const before = v.messages.length;
    v.send({ ...msg(), id: before + 1000 });
    const err = await v.until(() => v.messages.slice(before).find((m) => m.t === 'error' && m.id === before + 1000), 5000, 'the error');
    expect(err.message).toMatch(words);
  });

  it('a client that never attached cannot type into a terminal', async ({ forge }) => {
    const stranger = await Viewer.open(forge.info);
    stranger.send({ t: 'term_input', term, data: 'echo stranger\r' });
    const err = await stranger.until(() => stranger.message('error'), 5000, 'the error');
    expect(err.message).toMatch(/not attached to terminal/);
    stranger.close();
  });
});
