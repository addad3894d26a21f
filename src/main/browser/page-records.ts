/**
 * What each tab's page said and fetched, kept for the agent's browser_console_messages and
 * browser_network_requests: its console messages and uncaught errors, and its requests, each in
 * a bounded buffer per tab that counts what it dropped. A main-frame navigation starts a new
 * page: the tools answer since it unless asked for everything.
 */
import type { Page, Request, Response } from 'playwright-core';
import type { Tab } from './tabs.js';

/** Console messages and page errors kept per tab: older ones are dropped and counted, so a chatty page cannot grow the server. */
export const CONSOLE_MESSAGES_PER_TAB_MAX = 1_000;
/**
 * Requests kept per tab, with their responses: older ones are dropped and counted. Each holds the
 * driver's live request and response objects (headers and all), which keep the driver's own copies
 * alive too: a soak with 1,000 a tab grew the server's heap by over 100 MB.
 */
export const NETWORK_REQUESTS_PER_TAB_MAX = 200;
/** Longest console message kept, characters: a page that logs a megabyte a line cannot grow the server. */
export const CONSOLE_TEXT_MAX_CHARS = 4_000;

export type ConsoleLevel = 'error' | 'warning' | 'info' | 'debug';

export interface ConsoleEntry { level: ConsoleLevel; type: string; text: string; where: string; page: number }
export interface RequestEntry { request: Request; page: number; response?: Response }

export interface PageRecords {
  console: ConsoleEntry[];
  consoleDropped: number;
  requests: RequestEntry[];
  requestsDropped: number;
  /** Counts main-frame navigations: entries carry the page they came from. */
  page: number;
}

const records = new WeakMap<Tab, PageRecords>();
const entries = new WeakMap<Request, RequestEntry>();

export function recordsOf(tab: Tab): PageRecords {
  let r = records.get(tab);
  if (!r) {
    r = { console: [], consoleDropped: 0, requests: [], requestsDropped: 0, page: 0 };
    records.set(tab, r);
  }
  return r;
}

function levelOf(type: string): ConsoleLevel {
  if (type === 'error' || type === 'assert') return 'error';
  if (type === 'warning') return 'warning';
  if (type === 'debug') return 'debug';
  return 'info';
}

function bounded(text: string): string {
  return text.length <= CONSOLE_TEXT_MAX_CHARS ? text : `${text.slice(0, CONSOLE_TEXT_MAX_CHARS)}… (cut at ${CONSOLE_TEXT_MAX_CHARS} characters)`;
}

/** Starts keeping the page's console and requests for its tab (a rebuilt page is recorded again). */
export function recordPage(tab: Tab, page: Page): void {
  const r = recordsOf(tab);
  const keep = (e: ConsoleEntry): void => {
    r.console.push(e);
    if (r.console.length > CONSOLE_MESSAGES_PER_TAB_MAX) { r.console.shift(); r.consoleDropped++; }
  };
  page.on('console', (m) => {
    const loc = m.location();
    keep({ level: levelOf(m.type()), type: m.type(), text: bounded(m.text()), where: loc.url ? `${loc.url}:${loc.lineNumber + 1}` : '', page: r.page });
  });
  page.on('pageerror', (e) => keep({ level: 'error', type: 'pageerror', text: bounded(`${e.name}: ${e.message}`), where: '', page: r.page }));
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) r.page++; });
  page.on('request', (request) => {
    // The document request of a navigation belongs to the page it loads.
    const isDoc = request.isNavigationRequest() && request.frame() === page.mainFrame();
    const e: RequestEntry = { request, page: isDoc ? r.page + 1 : r.page };
    entries.set(request, e);
    r.requests.push(e);
    if (r.requests.length > NETWORK_REQUESTS_PER_TAB_MAX) { r.requests.shift(); r.requestsDropped++; }
  });
  page.on('response', (res) => { const e = entries.get(res.request()); if (e) e.response = res; });
}
