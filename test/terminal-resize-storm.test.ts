/**
 * A storm of sizes from one client (a window dragged, a client gone wrong) is applied at most once
 * per TERM_RESIZE_MIN_INTERVAL_MS, the newest size winning: the screen model reflows and every
 * viewer is repainted a few times, not once per message, and the shell ends at the size asked last.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { Viewer } from './helpers/term-viewer.js';
import { TERM_STATE } from '../src/shared/terminal.js';

const SEAT = 'default/proj/lead';
/** Sizes sent back to back: 30 columns' worth of a drag, one message each. */
const STORM = 30;

const it = forgeTest();

describe('a storm of resizes', () => {
  it('a holder\'s burst of sizes repaints its viewers a few times, not once per size, and the shell takes the newest', async ({ forge, agentFor }) => {
    await (await agentFor(SEAT)).call('terminal__run', { command: 'echo ready' });
    const holder = await Viewer.open(forge.info);
    const watcher = await Viewer.open(forge.info);
    try {
      holder.send({ t: 'term_attach', seat: SEAT, cols: 80, rows: 24 });
      const term = (await holder.until(() => holder.message('term_view'), 15_000, 'term_view')).term as number;
      holder.send({ t: 'term_control', term, take: true });
      await holder.until(() => holder.message('term_state')?.state === TERM_STATE.youHaveControl, 5000, 'the keyboard');
      watcher.send({ t: 'term_attach', seat: SEAT, cols: 80, rows: 24 });
      await watcher.until(() => watcher.message('term_view'), 15_000, 'the watcher\'s view');

      const views = (v: Viewer): Array<Record<string, unknown>> => v.messages.filter((m) => m.t === 'term_view');
      const before = { holder: views(holder).length, watcher: views(watcher).length };
      for (let i = 1; i <= STORM; i++) holder.send({ t: 'term_resize', term, cols: 80 + i, rows: 24 });

      const last = 80 + STORM;
      for (const v of [holder, watcher]) await v.until(() => views(v).at(-1)?.cols === last, 5000, `a view at the newest size, ${last} columns`);
      holder.send({ t: 'term_input', term, data: 'stty size\r' });
      await holder.until(() => new RegExp(`\\b24 ${last}\\r\\n`).test(holder.text()), 5000, `the shell's size: 24 rows of ${last}`);

      // Applied at once, then at most once a spell: a handful of repaints for a burst that takes a few ms.
      const repaints = { holder: views(holder).length - before.holder, watcher: views(watcher).length - before.watcher };
      expect(repaints.holder).toBeLessThanOrEqual(STORM / 6);
      expect(repaints.watcher).toBeLessThanOrEqual(STORM / 6);
      expect(views(holder).at(-1)).toMatchObject({ cols: last, rows: 24 });
    } finally {
      holder.close();
      watcher.close();
    }
  });
});
