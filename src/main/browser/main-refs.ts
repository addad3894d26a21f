/**
 * The main frame's refs as an agent reads them: `e5`, as Playwright MCP shows a fresh page's.
 * The driver names every frame's refs after the frame's sequence number in the browser (`f51e5`),
 * and on a shared host that has opened many windows the main frame's number is never the first:
 * it grows with every tab and changes with a cross-site navigation. Forge drops the main frame's
 * prefix from each snapshot it answers and puts it back when an agent names a ref; a subframe's
 * refs keep theirs (`f7e3`), as in Playwright MCP.
 */
import type { Tab } from './tabs.js';

/** Each tab's main-frame prefix, as its latest page snapshot showed it ('' when it has none). */
const prefixes = new WeakMap<Tab, string>();

/** A ref as a snapshot line writes it, with or without a frame prefix. */
const FIRST_REF = /\[ref=(f\d+)?e\d+\]/;
/** A ref with no frame prefix: the main frame's, as forge shows it. */
const PLAIN_REF = /^e\d+$/;

/** Drops `prefix` from the refs of `snapshot` that carry exactly it. */
function strip(snapshot: string, prefix: string): string {
  return prefix ? snapshot.replace(new RegExp(`\\[ref=${prefix}e(\\d+)\\]`, 'g'), '[ref=e$1]') : snapshot;
}

/**
 * A whole page's snapshot with its main frame's refs plain. Its first ref is the main frame's
 * (the page's root comes before any frame it holds): that prefix is the tab's from now on.
 */
export function plainPageRefs(tab: Tab, snapshot: string): string {
  const first = FIRST_REF.exec(snapshot);
  if (first) prefixes.set(tab, first[1] ?? '');
  return strip(snapshot, prefixes.get(tab) ?? '');
}

/** A subtree's snapshot with the main frame's refs plain, by the prefix the tab's page snapshot showed. */
export function plainSubtreeRefs(tab: Tab, snapshot: string): string {
  return strip(snapshot, prefixes.get(tab) ?? '');
}

/** The driver's name for a ref an agent gave: a plain ref is the main frame's. */
export function driverRef(tab: Tab, ref: string): string {
  return PLAIN_REF.test(ref) ? `${prefixes.get(tab) ?? ''}${ref}` : ref;
}
