/**
 * What an action started: a click's handler may navigate, raise a dialog, open a file chooser
 * or a popup a little after the click itself returned. After the action forge watches briefly
 * for these, asking the page what it still has pending (short timers the action set, a
 * navigation it began, requests in flight), so an action that started nothing answers at once and
 * one that started something answers with what it caused.
 */
import type { BrowserContext } from 'playwright-core';
import { recordsOf, type RequestEntry } from '../page-records.js';
import { NAVIGATION_TIMEOUT_MS } from '../../../shared/limits.js';
import type { Tab } from '../tabs.js';

/**
 * Longest watch after an action, ms: a handler's timer (a navigation or an alert 100 ms after
 * the click) lands inside it; a page with nothing pending answers without waiting it out.
 */
export const ACTION_WATCH_MS = 250;
/** Timers the page sets with a delay up to this count as the action's pending work, ms. */
const ACTION_TIMER_MAX_MS = ACTION_WATCH_MS;
/** After a pending timer is due, how long to give its work to reach forge, ms (a navigation's first request). */
const TIMER_SLACK_MS = 15;
/** Questions to the page after one action at most: a page that keeps setting short timers ends the watch. */
const TRACKER_ASKS_MAX = 8;
/** Longest wait for the page to answer the question, ms: a page stopped in a script does not hold the answer. */
const TRACKER_ASK_MAX_MS = 2_000;
/** Once the page says it began a navigation, how long its first request may take to reach forge, ms. */
const NAV_START_WAIT_MS = 2_000;
/** Longest wait for a started navigation's DOMContentLoaded once it committed, ms: a slow page answers as still loading. */
const DOM_READY_WAIT_MS = 5_000;

/** The page-side key of the tracker (not enumerable, so page scripts iterating window do not see it). */
const TRACKER = '__forgeActionWatch';

/** Records short timers and navigations as they start, for the question after an action. */
export const ACTION_TRACKER_SCRIPT = `(() => {
  if (window.${TRACKER}) return;
  const pending = new Map();
  let navAt = 0;
  const st = window.setTimeout, ct = window.clearTimeout, ts = Function.prototype.toString;
  const native = (f, real) => { try { Object.defineProperty(f, 'toString', { value: () => ts.call(real), configurable: true }); } catch {} return f; };
  window.setTimeout = native(function setTimeout(fn, ms, ...rest) {
    if (typeof fn !== 'function') return st(fn, ms, ...rest);
    const delay = Number(ms) || 0;
    const id = st(function () { pending.delete(id); return fn.apply(this, arguments); }, ms, ...rest);
    if (delay <= ${ACTION_TIMER_MAX_MS}) pending.set(id, { at: Date.now(), due: Date.now() + delay });
    return id;
  }, st);
  window.clearTimeout = native(function clearTimeout(id) { pending.delete(id); return ct(id); }, ct);
  try { navigation.addEventListener('navigate', (e) => { if (!e.destination.sameDocument) navAt = Date.now(); }); } catch {}
  addEventListener('beforeunload', () => { navAt = Date.now(); }, true);
  // A form's submission navigates from a task of its own, after the key or click that sent it has
  // returned; its submit event comes at once, and one no handler stopped is a navigation begun.
  addEventListener('submit', (e) => { if (!e.defaultPrevented && e.target.method !== 'dialog') navAt = Date.now(); });
  Object.defineProperty(window, '${TRACKER}', { value: (since) => {
    let due = 0;
    for (const t of pending.values()) if (t.at >= since && t.due > due) due = t.due;
    return { due, nav: navAt >= since };
  } });
})();`;

const installed = new WeakSet<BrowserContext>();

/** Puts the tracker in every page the context loads from now on (the pages already loaded go without it). */
export async function installTracker(context: BrowserContext): Promise<void> {
  if (installed.has(context)) return;
  installed.add(context);
  await context.addInitScript(ACTION_TRACKER_SCRIPT);
}

export interface ActionEffects {
  /** Sentences for the answer: what the action started. */
  said: string[];
}

/**
 * Runs `act` on the tab and watches what it started, at most ACTION_WATCH_MS past its end,
 * ended early once the page has nothing pending; a navigation that began is waited to its commit
 * and DOMContentLoaded. A dialog ends the watch at once (the page call answers with it).
 */
export async function watchAction(tab: Tab, verb: string, act: () => Promise<void>): Promise<ActionEffects> {
  const page = tab.page;
  const since = Date.now() - 2;
  const startUrl = page.url();
  let navRequest: string | undefined;
  let committed: string | undefined;
  let chooser = false;
  // Requests are watched through the tab's own records (plain data from its CDP session), never
  // the driver's request events: each request object the driver hands out stays alive in it.
  const inFlight = new Set<string>();
  let poke: () => void = () => undefined;
  const woken = (): void => poke();
  /** The navigation ended without a commit: it became a download, or it failed (either may come before the wait below starts). */
  let navEnded = false;
  let navFailed: () => void = () => undefined;
  const failedNav = new Promise<void>((r) => { navFailed = r; });
  const onRequest = (e: RequestEntry, phase: 'start' | 'end'): void => {
    if (phase === 'start') {
      if (e.navigation) navRequest ??= e.url;
      else inFlight.add(e.id);
    } else {
      inFlight.delete(e.id);
      if (e.navigation && e.failure) { navEnded = true; navFailed(); }
    }
    woken();
  };
  const records = recordsOf(tab);
  const onDownload = (): void => { navEnded = true; woken(); };
  const onNav = (f: import('playwright-core').Frame): void => { if (f === page.mainFrame()) { committed = f.url(); woken(); } };
  const onChooser = (): void => { chooser = true; woken(); };
  records.watchers.add(onRequest);
  page.on('framenavigated', onNav);
  page.on('filechooser', onChooser);
  page.on('download', onDownload);
  const said: string[] = [];
  try {
    await act();
    const deadline = Date.now() + ACTION_WATCH_MS;
    const sleep = (until: number): Promise<void> => new Promise<void>((r) => {
      const t = setTimeout(r, Math.max(1, until - Date.now()));
      poke = () => { clearTimeout(t); r(); };
    }).finally(() => { poke = () => undefined; });
    const started = (): boolean => !!(tab.dialog || chooser || navRequest || committed || navEnded);
    for (let asks = 0; asks < TRACKER_ASKS_MAX && !started(); asks++) {
      // Not cut by the watch: on a loaded machine the answer itself may take longer than the watch.
      const asked = await Promise.race([
        page.evaluate(`window.${TRACKER} ? window.${TRACKER}(${since}) : { due: -1, nav: false }`) as Promise<{ due: number; nav: boolean }>,
        new Promise<undefined>((r) => setTimeout(r, TRACKER_ASK_MAX_MS)),
      ]).catch(() => undefined);
      if (!asked || started()) break;
      const now = Date.now();
      if (asked.nav) {
        // The page began a navigation: its first request is on its way to forge.
        await sleep(now + NAV_START_WAIT_MS);
        break;
      }
      // A timer the action set is still to run (each is due within ACTION_TIMER_MAX_MS of being set;
      // one past due has not run yet because the page is busy, and is waited for as well).
      if (asked.due > 0) { await sleep(Math.max(asked.due, now) + TIMER_SLACK_MS); continue; }
      // A page loaded before the tracker existed cannot say, and requests in flight may still lead somewhere.
      if ((asked.due < 0 || inFlight.size) && now < deadline) { await sleep(deadline); if (asked.due < 0) break; continue; }
      break;
    }
    if (tab.dialog) return { said };
    if (navRequest && !committed && !navEnded) {
      // Until it commits, or turns out a download or a failure (neither ever commits).
      const opts = { timeout: NAVIGATION_TIMEOUT_MS };
      const waits = [
        page.waitForEvent('framenavigated', { ...opts, predicate: (f) => f === page.mainFrame() }),
        page.waitForEvent('download', opts),
        failedNav,
      ];
      await Promise.race(waits).catch(() => undefined);
      for (const w of waits) w.catch(() => undefined);
    }
    if (committed || (navRequest && !navEnded)) {
      await page.waitForLoadState('domcontentloaded', { timeout: DOM_READY_WAIT_MS }).catch(() => undefined);
      const now = page.url();
      said.push(now !== startUrl ? `- The ${verb} navigated the tab to ${now}` : `- The ${verb} reloaded the page (${now})`);
    }
    if (chooser) said.push(`- The ${verb} opened a file chooser on tab ${tab.number} (${tab.pageId}); answer it with browser_file_upload (paths, or none to cancel)`);
    return { said };
  } finally {
    records.watchers.delete(onRequest);
    page.off('framenavigated', onNav);
    page.off('filechooser', onChooser);
    page.off('download', onDownload);
  }
}
