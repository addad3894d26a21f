/**
 * What an action started: a click's handler may navigate, raise a dialog, open a file chooser
 * or a popup a little after the click itself returned. After the action forge watches briefly
 * for these, asking the page what it still has pending (short timers the action set, a
 * navigation it began, requests in flight), so an action that started nothing answers at once and
 * one that started something answers with what it caused.
 */
import { recordsOf, type RequestEntry } from '../page-records.js';
import { NAVIGATION_TIMEOUT_MS } from '../../../shared/limits.js';
import type { Tab } from '../tabs.js';
import { TRACKED_TIMER_MAX_MS, askPending } from '../action-tracker.js';

/**
 * Longest watch after an action, ms: a handler's timer (a navigation or an alert 100 ms after
 * the click) lands inside it; a page with nothing pending answers without waiting it out.
 */
export const ACTION_WATCH_MS = TRACKED_TIMER_MAX_MS;
/** After a pending timer is due, how long to give its work to reach forge, ms (a navigation's first request). */
const TIMER_SLACK_MS = 15;
/** Questions to the page after one action at most: a page that keeps setting short timers ends the watch. */
const TRACKER_ASKS_MAX = 8;
/**
 * A call that is no watched action (an evaluate, a navigation, a resize) still waits for the
 * short timers it set that fall due within this long of its start, ms: a popup the page opens
 * from such a timer is in the call's answer. Nothing pending, nothing waited.
 */
const CALL_TIMER_WINDOW_MS = 40;
/** Questions to the page when a call settles at most: timers that set timers end it. */
const SETTLE_ASKS_MAX = 4;
/** Each tab's last watch, by when it began: a call whose action was watched settles with it. */
const watched = new WeakMap<Tab, number>();

/** Once the page says it began a navigation, how long its first request may take to reach forge, ms. */
const NAV_START_WAIT_MS = 2_000;
/** Longest wait for a started navigation's DOMContentLoaded once it committed, ms: a slow page answers as still loading. */
const DOM_READY_WAIT_MS = 5_000;

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
  watched.set(tab, since);
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
      const asked = await askPending(page, since);
      if (!asked || started()) break;
      const now = Date.now();
      if (asked.nav) {
        // The page began a navigation: its first request is on its way to forge.
        await sleep(now + NAV_START_WAIT_MS);
        break;
      }
      // A timer the action set is still to run (each is due within TRACKED_TIMER_MAX_MS of being set;
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
    if (chooser) said.push(`- The ${verb} opened a file chooser on tab ${tab.number} (${tab.pageId}); answer it with browser_file_upload (files by their contents or paths on the server, or neither to cancel)`);
    return { said };
  } finally {
    records.watchers.delete(onRequest);
    page.off('framenavigated', onNav);
    page.off('filechooser', onChooser);
    page.off('download', onDownload);
  }
}

/**
 * After a call's work: waits for the short timers the call set that fall due within
 * CALL_TIMER_WINDOW_MS of `since` (its start), or past due on a busy page, so what they open is
 * in the answer; a page without the tracker is given that window whole. A call whose action was
 * watched has waited for its timers already, and a held dialog stops the page from answering.
 */
export async function settleCall(tab: Tab, since: number): Promise<void> {
  if ((watched.get(tab) ?? 0) >= since) return;
  const end = since + CALL_TIMER_WINDOW_MS;
  const sleep = (until: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(1, until - Date.now())));
  for (let asks = 0; asks < SETTLE_ASKS_MAX && !tab.dialog && !tab.crashed; asks++) {
    const asked = await askPending(tab.page, since, end);
    if (!asked || asked.due === 0) return;
    if (asked.due < 0) return sleep(end);
    await sleep(Math.max(asked.due, Date.now()) + TIMER_SLACK_MS);
  }
}
