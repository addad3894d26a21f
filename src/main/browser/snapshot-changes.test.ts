import { describe, expect, it } from 'vitest';
import { changesBetween, keepReading, lastReading, KEPT_READERS_PER_TAB } from './snapshot-changes.js';

const BEFORE = `- generic [active] [ref=e1]:
  - textbox "Search" [ref=e3]
  - list [ref=e5]:
    - listitem [ref=e6]:
      - link "Item 1" [ref=e7]:
        - /url: /one
    - listitem [ref=e8]:
      - link "Item 2" [ref=e9]:
        - /url: /two`;
const AFTER = `- generic [ref=e1]:
  - textbox "Search" [active] [ref=e3]: blue
  - region "Filters" [ref=e10]:
    - checkbox "In stock" [ref=e11]
  - list [ref=e5]:
    - listitem [ref=e6]:
      - link "Item 1" [ref=e7]:
        - /url: /one`;

describe('the changes between two snapshots of one document name every line an agent can act on', () => {
  it('says added and changed lines with their refs, and the refs removed, and nothing else', () => {
    const c = changesBetween(BEFORE, AFTER);
    expect(c).toMatchObject({ added: 2, changed: 1, removed: 3, unchanged: 5 });
    expect(c.text.split('\n')).toEqual([
      '~   - textbox "Search" [active] [ref=e3]: blue',
      '  - generic [ref=e1]:',
      '+   - region "Filters" [ref=e10]:',
      '+     - checkbox "In stock" [ref=e11]',
      '# removed: 3 lines (refs e8-e9)',
    ]);
  });

  it('two equal snapshots have no changes', () => {
    const c = changesBetween(BEFORE, BEFORE);
    expect(c).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 9, text: '' });
    expect(c.focus).toBeUndefined();
  });

  it('focus that moved and nothing else is no changed line, but says where the focus went', () => {
    const tabbed = BEFORE.replace('generic [active] [ref=e1]', 'generic [ref=e1]').replace('textbox "Search" [ref=e3]', 'textbox "Search" [active] [ref=e3]');
    const c = changesBetween(BEFORE, tabbed);
    expect(c).toMatchObject({ added: 0, changed: 0, removed: 0, text: '', focus: 'textbox "Search" [ref=e3]' });
    expect(changesBetween(BEFORE, BEFORE.replace(' [active]', '')).focus).toBe('nothing');
    expect(changesBetween(BEFORE, AFTER).focus).toBe('textbox "Search" [ref=e3]: blue');
  });

  it('a tab keeps the last reading of a bounded number of seats', () => {
    const tab = {};
    for (let i = 0; i <= KEPT_READERS_PER_TAB; i++) keepReading(tab, `s${i}`, 1, `text ${i}`);
    expect(lastReading(tab, 's0')).toBeUndefined();
    expect(lastReading(tab, `s${KEPT_READERS_PER_TAB}`)).toEqual({ document: 1, text: `text ${KEPT_READERS_PER_TAB}` });
  });
});
