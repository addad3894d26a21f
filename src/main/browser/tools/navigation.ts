/**
 * Navigation: browser_navigate answers once the page committed and its DOM is ready (a page
 * whose last image never arrives is usable, so it is not an error), with the HTTP status when
 * the server answered an error; browser_navigate_back answers once the history step committed
 * (a page the back/forward cache restores fires no load event again).
 */
import { z } from 'zod';
import type { Frame, Response } from 'playwright-core';
import { NAVIGATION_TIMEOUT_MS } from '../../../shared/limits.js';
import { onTab } from './on-tab.js';
import { pageState } from './page-state.js';
import type { ToolDef } from './tool-def.js';
import type { Tab } from '../tabs.js';
import { refuseUrl } from '../url-policy.js';

/** After a history step committed, how long to give its DOM to be ready, ms: a restored page already is. */
const BACK_DOM_READY_WAIT_MS = 5_000;

/**
 * How long a failed load's error page gets to commit before the answer, ms. Chromium commits its
 * error page (chrome-error://) after the driver already reported the failure; a navigation the
 * agent starts before that commit is cut short by it ("interrupted by another navigation").
 */
const ERROR_PAGE_COMMIT_WAIT_MS = 3_000;

/**
 * Loads `url` in `tab` until its DOM is ready. A load that fails with a network error (no such
 * host, refused, an unsafe port) throws once the browser's error page has committed, so the
 * agent's next navigation starts on a settled tab.
 */
export async function loadUrl(tab: Tab, url: string): Promise<Response | null> {
  // Listened for from the start: the error page may commit before or after the driver reports the failure.
  let shown!: () => void;
  const errorPage = new Promise<void>((r) => { shown = r; });
  const onCommit = (f: Frame): void => { if (f === tab.page.mainFrame() && f.url().startsWith('chrome-error:')) shown(); };
  tab.page.on('framenavigated', onCommit);
  try {
    return await tab.page.goto(url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
  } catch (e) {
    // ERR_ABORTED: the load went elsewhere (a download, a navigation of the page's own); no error page follows.
    if (/net::ERR_/.test(String(e)) && !/net::ERR_ABORTED/.test(String(e))) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([errorPage, new Promise<void>((r) => { timer = setTimeout(r, ERROR_PAGE_COMMIT_WAIT_MS); })]);
      clearTimeout(timer);
    }
    throw e;
  } finally {
    tab.page.off('framenavigated', onCommit);
  }
}

/** The lines an answer adds about the load: an HTTP error status, a page still loading. */
async function loadNotes(tab: Tab, response: Response | null): Promise<string[]> {
  const notes: string[] = [];
  const status = response?.status() ?? 0;
  if (status >= 400) notes.push(`- HTTP status: ${status}${response!.statusText() ? ` ${response!.statusText()}` : ''} (the server answered an error; the page it sent is below)`);
  const ready = await tab.page.evaluate('document.readyState').catch(() => 'unknown');
  if (ready !== 'complete') notes.push('- The page is still loading (its DOM is ready; images or other resources have not all arrived): it can be used now');
  return notes;
}

export const NAVIGATION_TOOLS: ToolDef[] = [
  {
    name: 'browser_navigate',
    description: 'Navigate your current tab to a URL (your first page call opens your tab). Answers once the page\'s DOM is ready.',
    schema: z.object({ url: z.string().describe('The URL to open') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_navigate', 'loading the address', async (tab) => {
      refuseUrl(a.url as string, p.urlPolicy());
      const response = await loadUrl(tab, a.url as string);
      // Asked of the new document at once: each is a round trip that waits on its first script.
      const [notes, state] = await Promise.all([loadNotes(tab, response), pageState(tab, true, p)]);
      return [...(notes.length ? ['### Result', ...notes] : []), state].join('\n');
    }),
  },
  {
    name: 'browser_navigate_back',
    description: 'Go back to the previous page in your current tab.',
    schema: z.object({}).strict(),
    run: (_a, ctx, p) => onTab(p, ctx, 'browser_navigate_back', 'going back', async (tab) => {
      const history = (await p.driver?.session(tab.page)?.send('Page.getNavigationHistory').catch(() => undefined)) as { currentIndex: number } | undefined;
      if (history && history.currentIndex <= 0) return `### Result\n- There is no earlier page in tab ${tab.number}'s history; the tab stays where it is\n${await pageState(tab, true, p)}`;
      const response = await tab.page.goBack({ waitUntil: 'commit', timeout: NAVIGATION_TIMEOUT_MS });
      // A page the back/forward cache restores is ready as it commits, and fires no DOMContentLoaded
      // again for the driver to see: asked first, so only a page still loading is waited for.
      const ready = await tab.page.evaluate('document.readyState').catch(() => 'loading');
      if (ready === 'loading') await tab.page.waitForLoadState('domcontentloaded', { timeout: BACK_DOM_READY_WAIT_MS }).catch(() => undefined);
      const [notes, state] = await Promise.all([loadNotes(tab, response), pageState(tab, true, p)]);
      return [...(notes.length ? ['### Result', ...notes] : []), state].join('\n');
    }),
  },
];
