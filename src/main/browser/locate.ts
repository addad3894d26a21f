/**
 * Element resolution for page calls: a ref from the latest snapshot (`e5`, `f1e3`), a unique
 * role/name selector (`role=button[name="Save"]`) or Playwright locator code (`getByRole(…)`).
 * Never guessed: a ref that no longer resolves and a selector matching several elements are
 * refused with what to do.
 */
import type { Locator } from 'playwright-core';
import { ForgeError } from '../../shared/errors.js';
import type { Tab } from './tabs.js';
import { isLocatorCode, selectorOfCode } from './locator-text.js';
import { driverRef } from './main-refs.js';

const REF_RE = /^(f\d+)?e\d+$/;
/** A snapshot line's ref, wherever it stands in the line (`button "Go" [ref=e5]`). */
const LINE_REF_RE = /\[ref=((?:f\d+)?e\d+)\]/;
/** How a snapshot line starts (its bullet, or a role and a quoted name), which no CSS selector does. */
const LINE_START_RE = /^(?:- |[a-z]+ ")/;
/** A snapshot line's role and name as the snapshot writes them (`- textbox "Name"`, `- list "Tags":`), nothing after. */
const LINE_ROLE_RE = /^(?:- )?([a-z]+) ("(?:[^"\\]|\\.)*"):?$/;

/**
 * What an agent copied from a snapshot, as a ref or a selector: a line that carries its ref is
 * that ref; `ROLE "NAME"` is the role selector for exactly that name; Playwright locator code is
 * the selector it stands for. Anything else is as given (none of these forms is valid CSS, so no
 * selector changes meaning).
 */
export function targetOf(target: string): string {
  const t = target.trim();
  const ref = LINE_START_RE.test(t) ? LINE_REF_RE.exec(t) : null;
  if (ref) return ref[1];
  const role = LINE_ROLE_RE.exec(t);
  if (role) return `role=${role[1]}[name=${role[2]}s]`;
  return isLocatorCode(t) ? selectorOfCode(t) : t;
}

export async function locate(tab: Tab, target: string): Promise<Locator> {
  const name = `tab ${tab.number} (${tab.pageId})`;
  const t = targetOf(target);
  if (!t) throw new ForgeError('bad_request', 'name the element: a ref from browser_snapshot (e5) or a role selector (role=button[name="Save"])');
  const isRef = REF_RE.test(t);
  const locator = isRef ? tab.page.getByRef(driverRef(tab, t)) : tab.page.locator(t);
  let count: number;
  try {
    count = await locator.count();
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0];
    if (isRef) throw stale(t, name);
    throw new ForgeError('bad_request', `"${t}" is not a ref or a selector forge can read (${msg.replace(/^\w+\.\w+: /, '')}); use a ref from browser_snapshot or role=ROLE[name="NAME"]`);
  }
  if (count === 0) {
    if (isRef) throw stale(t, name);
    throw new ForgeError('selector_not_found', `nothing on ${name} matches ${t}; take a browser_snapshot to see what the page holds now`);
  }
  if (count > 1) {
    throw new ForgeError('selector_ambiguous', `${t} matches ${count} elements on ${name}; name one element: use a ref from a fresh browser_snapshot, or scope the selector (for example to its row)`);
  }
  return locator;
}

function stale(ref: string, name: string): ForgeError {
  return new ForgeError('ref_stale', `ref ${ref} does not resolve on ${name}: it is not in the latest snapshot, or its element is gone; take a fresh browser_snapshot and use its refs`);
}
