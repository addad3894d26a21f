/**
 * Playwright keeps, in forge's own heap, a record of every request, response and console
 * argument a page has made (its client-side objects and the dispatchers behind them), and lets
 * one go only when its page closes or when its kind passes Playwright's own bound (10,000; JS
 * handles 100,000). A tab forge keeps open for hours piles them up: measured here at about 19 KB
 * a navigation, near 190 MB of heap before Playwright's bound. forge reads what it needs of each
 * at once (its tab records are plain data), so it bounds them far lower.
 */
import { createRequire } from 'node:module';
import { log } from '../logging.js';

/**
 * Most records Playwright keeps of one kind (requests, responses, JS handles, frames, pages);
 * past it the oldest tenth of that kind go. Far above what is alive at once under any tab budget
 * (pages, frames, CDP sessions: tens each), so only finished requests and old console arguments
 * are ever let go; at 19 KB a navigation it holds a long-lived tab's history to about 20 MB.
 */
export const PLAYWRIGHT_RECORDS_PER_KIND_MAX = 1_000;

let bounded = false;

/** Applies the bound once for the process, before the first connection; a Playwright without the hook is logged, and forge goes on. */
export function boundPlaywrightRecords(): void {
  if (bounded) return;
  bounded = true;
  try {
    const core = createRequire(import.meta.url)('playwright-core/lib/coreBundle') as { server?: { setMaxDispatchersForTest?: (n: number) => void } };
    const set = core.server?.setMaxDispatchersForTest;
    if (typeof set !== 'function') throw new Error('this playwright-core has no bound on its records');
    set(PLAYWRIGHT_RECORDS_PER_KIND_MAX);
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'Playwright\'s records of finished requests are not bounded: a long-lived tab\'s heap grows with its navigations');
  }
}
