/**
 * The page-side tracker behind an action's watch and a call's popup settle: every page forge
 * loads records the short timers it sets and the navigations it begins, so forge can ask after
 * an action what the page still has pending, and wait only for that.
 */
import type { BrowserContext, Page } from 'playwright-core';

/**
 * Timers the page sets with a delay up to this count as pending work of whatever set them, ms:
 * a handler that navigates or alerts within half a second of a click is the click's work (as
 * Playwright MCP's settle after an action waits about this long); a page's own loops are not.
 */
export const TRACKED_TIMER_MAX_MS = 500;
/** Longest wait for the page to answer the question, ms: a page stopped in a script does not hold the answer. */
const TRACKER_ASK_MAX_MS = 2_000;

/** The page-side key of the tracker (not enumerable, so page scripts iterating window do not see it). */
const TRACKER = '__forgeActionWatch';

/**
 * Records short timers and navigations as they start. Each timer carries the time its chain
 * began: a timer set from another timer's callback belongs to that timer's chain, so a page
 * that polls (a timer setting the next one) started its chain long before an action, and its
 * ticks are not the action's work. A timer set anywhere else (an event handler, a script the
 * call ran) starts a chain of its own.
 */
export const ACTION_TRACKER_SCRIPT = `(() => {
  if (window.${TRACKER}) return;
  const pending = new Map();
  let navAt = 0;
  let chain = 0;
  const st = window.setTimeout, ct = window.clearTimeout, ts = Function.prototype.toString;
  const native = (f, real) => { try { Object.defineProperty(f, 'toString', { value: () => ts.call(real), configurable: true }); } catch {} return f; };
  window.setTimeout = native(function setTimeout(fn, ms, ...rest) {
    if (typeof fn !== 'function') return st(fn, ms, ...rest);
    const delay = Number(ms) || 0;
    const origin = chain || Date.now();
    const id = st(function () {
      pending.delete(id);
      const outer = chain;
      chain = origin;
      try { return fn.apply(this, arguments); } finally { chain = outer; }
    }, ms, ...rest);
    if (delay <= ${TRACKED_TIMER_MAX_MS}) pending.set(id, { origin, due: Date.now() + delay });
    return id;
  }, st);
  window.clearTimeout = native(function clearTimeout(id) { pending.delete(id); return ct(id); }, ct);
  try { navigation.addEventListener('navigate', (e) => { if (!e.destination.sameDocument) navAt = Date.now(); }); } catch {}
  addEventListener('beforeunload', () => { navAt = Date.now(); }, true);
  // A form's submission navigates from a task of its own, after the key or click that sent it has
  // returned; its submit event comes at once, and one no handler stopped is a navigation begun.
  addEventListener('submit', (e) => { if (!e.defaultPrevented && e.target.method !== 'dialog') navAt = Date.now(); });
  Object.defineProperty(window, '${TRACKER}', { value: (since, until) => {
    let due = 0;
    for (const t of pending.values()) if (t.origin >= since && t.due <= until && t.due > due) due = t.due;
    return { due, nav: navAt >= since };
  } });
})();`;

/** Puts the tracker in every page the context loads from now on (the pages already loaded go without it). */
export async function installTracker(context: BrowserContext): Promise<void> {
  await context.addInitScript(ACTION_TRACKER_SCRIPT);
}

/**
 * What the page has pending from work that began at `since` or later: `due`, when the last of its
 * short timers due by `until` is due (0: none; -1: the page has no tracker, so it cannot say), and
 * `nav`, whether it began a navigation. Undefined when the page did not answer within TRACKER_ASK_MAX_MS or is gone.
 */
export async function askPending(page: Page, since: number, until = Number.MAX_SAFE_INTEGER): Promise<{ due: number; nav: boolean } | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => { timer = setTimeout(() => r(undefined), TRACKER_ASK_MAX_MS); });
  const asked = page.evaluate(`window.${TRACKER} ? window.${TRACKER}(${since}, ${until}) : { due: -1, nav: false }`) as Promise<{ due: number; nav: boolean }>;
  try {
    return await Promise.race([asked, late]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    asked.catch(() => undefined);
  }
}
