/**
 * Element resolution for page calls: a ref from the latest snapshot (`e5`, `f1e3`) or a unique
 * role/name selector (`role=button[name="Save"]`). Never guessed: a ref that no longer resolves
 * and a selector matching several elements are refused with what to do.
 */
import type { Locator } from 'playwright-core';
import { ForgeError } from '../../shared/errors.js';
import type { Tab } from './tabs.js';

const REF_RE = /^(f\d+)?e\d+$/;

export async function locate(tab: Tab, target: string): Promise<Locator> {
  const name = `tab ${tab.number} (${tab.pageId})`;
  const t = target.trim();
  if (!t) throw new ForgeError('bad_request', 'name the element: a ref from browser_snapshot (e5) or a role selector (role=button[name="Save"])');
  const isRef = REF_RE.test(t);
  const locator = isRef ? tab.page.getByRef(t) : tab.page.locator(t);
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
