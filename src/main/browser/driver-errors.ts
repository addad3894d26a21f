/**
 * Driver errors in forge's words. Playwright's messages carry call logs and internal names;
 * an agent reads one sentence saying what happened and what to do.
 */
import { ForgeError, isForgeError } from '../../shared/errors.js';
import type { Tab } from './tabs.js';

export function inForgeWords(e: unknown, tab: Tab, what: string): ForgeError {
  if (isForgeError(e)) return e;
  const raw = (e as Error)?.message ?? String(e);
  const first = raw.split('\n')[0].replace(/^\w+(\.\w+)?: /, '').replace(/^Error: /, '');
  const name = `tab ${tab.number} (${tab.pageId})`;
  if (/strict mode violation/.test(raw)) {
    const n = /resolved to (\d+) elements/.exec(raw)?.[1] ?? 'several';
    return new ForgeError('selector_ambiguous', `the selector matches ${n} elements on ${name}; name one element: use a ref from a fresh browser_snapshot, or scope the selector (for example to its row)`);
  }
  if (/Target page, context or browser has been closed|Target closed|has been closed/.test(raw)) {
    if (tab.crashed) return new ForgeError('page_crashed', `the page in ${name} crashed while ${what}; the next call reloads it`);
    return new ForgeError('tab_not_open', `${name} was closed while ${what}`);
  }
  if (/Execution context was destroyed|navigation/i.test(raw) && /context|destroyed/.test(raw)) {
    return new ForgeError('page_crashed', `the page in ${name} navigated away while ${what}; take a fresh browser_snapshot and try again`);
  }
  if ((e as Error)?.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(raw)) {
    const ms = /Timeout (\d+)ms/.exec(raw)?.[1];
    const why = waitedOn(raw);
    return new ForgeError('timeout', `the page in ${name} did not finish ${what} ${ms ? `within ${Number(ms) / 1000} s` : 'in time'}; ${why ?? 'it may still be busy'} — take a browser_snapshot to see where it is`);
  }
  if (/net::ERR_/.test(raw)) {
    const code = /net::ERR_[A-Z_]+/.exec(raw)?.[0];
    return new ForgeError('bad_request', `${name} could not load the address (${code}); the tab shows the browser's error page`);
  }
  return new ForgeError('bad_request', `${what} on ${name} failed: ${first}`);
}

/** Longest text of the page's element forge repeats when it names what is in the way, characters. */
const IN_THE_WAY_MAX_CHARS = 160;

/** The terminal styling the driver's call log carries (dim lines). */
const ANSI_STYLE = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g');

/** What the driver's last retries waited on, in words, from its call log; undefined when it does not say. */
function waitedOn(raw: string): string | undefined {
  const lines = raw.replace(ANSI_STYLE, '').split('\n').map((l) => l.trim().replace(/^- /, ''));
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    const over = /^(.*) intercepts pointer events$/.exec(l);
    if (over) return `another element is on top of it and would take the click: ${over[1]!.slice(0, IN_THE_WAY_MAX_CHARS)} (close or scroll away what covers it first)`;
    if (/element is not enabled/.test(l)) return 'the element is disabled';
    if (/element is not visible/.test(l)) return 'the element is not visible';
    if (/element is not editable/.test(l)) return 'the element is not editable';
    if (/element is not stable/.test(l)) return 'the element kept moving';
  }
  return undefined;
}
