/** A tab's page in words: the header line naming it, its snapshot, and what changed since the owner last read it. */
import { SNAPSHOT_MAX_CHARS } from '../../../shared/limits.js';
import { locate } from '../locate.js';
import type { ProfileBrowser } from '../profile.js';
import { CHANGES_WHOLE_SHARE, changesBetween, keepReading, lastReading } from '../snapshot-changes.js';
import { collapseLongLists } from '../snapshot-collapse.js';
import type { Tab } from '../tabs.js';
import { keepOnAnswer } from '../answered-readings.js';
import { plainPageRefs, plainSubtreeRefs } from '../main-refs.js';

function cut(text: string): string {
  return text.length > SNAPSHOT_MAX_CHARS ? `${text.slice(0, SNAPSHOT_MAX_CHARS)}\n# … cut at ${SNAPSHOT_MAX_CHARS} characters` : text;
}

export async function snapshotOf(tab: Tab, target?: string, depth?: number, boxes?: boolean): Promise<string> {
  const opts = { mode: 'ai' as const, ...(depth !== undefined ? { depth } : {}), ...(boxes ? { boxes } : {}) };
  return cut(target ? plainSubtreeRefs(tab, await (await locate(tab, target)).ariaSnapshot(opts)) : plainPageRefs(tab, await tab.page.ariaSnapshot(opts)));
}

export function header(tab: Tab): string {
  let url = '';
  try { url = tab.page.url(); } catch { /* closed */ }
  return `- Page: tab ${tab.number} (${tab.pageId}) · ${tab.title || '(no title)'} · ${shownUrl(url)}`;
}

import { shownUrl } from '../shown-url.js';

export { DATA_URL_SHOWN_CHARS, shownUrl } from '../shown-url.js';

/** Which document the page shows: its time origin, new with every document (a history push keeps it). */
const DOCUMENT_ID = 'performance.timeOrigin';

/**
 * The page's title and snapshot. Given the profile, whose [agent] snapshot is "diff", the answer
 * is what changed since the tab's owner last read this document; otherwise, or when the change is
 * most of the page, the whole snapshot. Either way the snapshot becomes the owner's last reading.
 */
export async function pageState(tab: Tab, withSnapshot = true, changesFor?: ProfileBrowser): Promise<string> {
  // The round trips to the page, asked at once: the title waits on a busy renderer as long as the snapshot.
  const [title, snapshot, document] = await Promise.all([
    tab.page.title().catch(() => tab.title),
    withSnapshot ? tab.page.ariaSnapshot({ mode: 'ai' }).then((s) => plainPageRefs(tab, s)) : undefined,
    withSnapshot && tab.owner ? tab.page.evaluate(DOCUMENT_ID).then(Number, () => NaN) : NaN,
  ]);
  tab.title = title;
  const lines = ['### Page state', header(tab)];
  if (snapshot === undefined) return lines.join('\n');
  const seat = tab.owner;
  const before = seat && changesFor?.snapshotMode() === 'diff' ? lastReading(tab, seat) : undefined;
  // Kept once this call's answer goes out: a call a dialog cut short was read by nobody.
  if (seat) keepOnAnswer(() => keepReading(tab, seat, document, snapshot));
  if (before && before.document === document) {
    const c = changesBetween(before.text, snapshot);
    if (c.text.length <= snapshot.length * CHANGES_WHOLE_SHARE) {
      const focus = c.focus === undefined ? [] : [c.focus === 'nothing' ? '- Focus left every element: nothing on the page has it now' : `- Focus moved to ${c.focus}`];
      if (!c.text) return [...lines, `- Page snapshot: unchanged since your last snapshot of this tab (${c.unchanged} lines)${c.focus === undefined ? '' : ' but for the focus'}`, ...focus].join('\n');
      const counts = [c.added && `${c.added} added`, c.changed && `${c.changed} changed`, c.removed && `${c.removed} removed`].filter(Boolean).join(', ');
      return [...lines, ...focus, `- Page changes since your last snapshot of this tab (${counts}, ${c.unchanged} unchanged; + added, ~ changed; browser_snapshot answers the whole page):`, '```', cut(c.text), '```'].join('\n');
    }
  }
  // An action's whole answer (a new page) shows long lists by their first entries; browser_snapshot shows all.
  const shown = changesFor?.snapshotMode() === 'diff' ? collapseLongLists(snapshot) : { text: snapshot, hidden: 0 };
  lines.push(shown.hidden ? `- Page snapshot (${shown.hidden} entries of long lists counted, not shown):` : '- Page snapshot:', '```yaml', cut(shown.text), '```');
  return lines.join('\n');
}
