import { describe, expect, it } from 'vitest';
import { collapseLongLists, LIST_SHOWN_ENTRIES } from './snapshot-collapse.js';

const list = (n: number): string => ['- main [ref=e1]:', '  - list [ref=e2]:', ...Array.from({ length: n }, (_, i) => `    - listitem [ref=e${10 + 2 * i}]:\n      - text: Product ${i + 1}\n      - button "Add ${i + 1}" [ref=e${11 + 2 * i}]`), '  - button "Next" [ref=e999]'].join('\n');

describe('a long run of like siblings is shown by its first entries and counted', () => {
  it('300 list items keep the first ones whole, count the rest with their refs, and keep what follows', () => {
    const { text, hidden } = collapseLongLists(list(300));
    expect(hidden).toBe(300 - LIST_SHOWN_ENTRIES);
    expect(text).toContain(`Product ${LIST_SHOWN_ENTRIES}\n`);
    expect(text).toContain(`button "Add ${LIST_SHOWN_ENTRIES}"`);
    expect(text).not.toContain(`Product ${LIST_SHOWN_ENTRIES + 1}\n`);
    expect(text).toContain(`    - "… 290 more listitem entries (refs e${10 + 2 * LIST_SHOWN_ENTRIES}…e${11 + 2 * 299}): browser_find or browser_snapshot shows them"`);
    expect(text.endsWith('  - button "Next" [ref=e999]')).toBe(true);
  });

  it('a run of 30 or fewer stays whole, as text', () => {
    const s = list(30);
    expect(collapseLongLists(s)).toEqual({ text: s, hidden: 0 });
  });
});
