/**
 * A terminal whose screen model fails (a defect: the model's reflow on a resize once threw after a
 * long random history) is ended in words, alone: its viewers are told, another seat's terminal
 * answers on, the server goes on, and the seat's next call starts a fresh terminal.
 *
 * The failure is made on purpose (FORGE_TEST_MODEL_FAULT_COLS: a resize to that width throws as
 * the reflow did), because the real one needs hours of random input to come back.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';

const FAULT_COLS = 77;
const SEAT = 'default/fault/lead';
const OTHER = 'default/fault/other';
const it = forgeTest({ env: { FORGE_TEST_MODEL_FAULT_COLS: String(FAULT_COLS) } });

describe('a terminal whose screen model fails', () => {
  it('is closed in words, and every other terminal and the server go on', async ({ forge, agentFor }) => {
    const a = await agentFor(SEAT);
    const b = await agentFor(OTHER);
    await a.call('terminal__run', { command: 'echo ready' });
    await b.call('terminal__run', { command: 'echo ready' });
    const v = await Viewer.open(forge.info);
    try {
      v.send({ t: 'term_attach', seat: SEAT, cols: 100, rows: 30 });
      const view = await v.until(() => v.message('term_view'), 15_000, 'term_view');
      const term = view.term as number;
      v.send({ t: 'term_control', term, take: true });
      v.send({ t: 'term_resize', term, cols: FAULT_COLS, rows: 30 });
      const closed = await v.until(() => v.message('term_closed'), 15_000, 'term_closed');
      expect(String(closed.message)).toMatch(/screen model failed on a resize to 77x30.*start it again/);
      const other = await b.call('terminal__run', { command: 'echo the-other-seat-answers' });
      expect(other.isError).toBe(false);
      expect(other.text).toContain('the-other-seat-answers');
      const again = await a.call('terminal__run', { command: 'echo a-fresh-terminal' });
      expect(again.isError).toBe(false);
      expect(again.text).toContain('a-fresh-terminal');
      expect(forge.output()).toContain('a terminal failed in its screen model');
    } finally {
      v.close();
    }
  });
});
