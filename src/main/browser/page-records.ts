/**
 * What each tab's page said and fetched, kept for the agent's browser_console_messages and
 * browser_network_requests: its console messages and uncaught errors, and its requests, each in
 * a bounded buffer per tab that counts what it dropped. A main-frame navigation starts a new
 * page: the tools answer since it unless asked for everything.
 */
import type { CDPSession, Page } from 'playwright-core';
import type { Tab } from './tabs.js';
import { shownDataUrls } from './shown-url.js';

/** Console messages and page errors kept per tab: older ones are dropped and counted, so a chatty page cannot grow the server. */
export const CONSOLE_MESSAGES_PER_TAB_MAX = 1_000;
/**
 * Requests kept per tab, with their responses, as plain data read from the page's own CDP
 * session: older ones are dropped and counted. (The driver's own request and response objects
 * are never asked for: each one it hands out stays alive in it until ten thousand more have come,
 * and a soak grew the server's heap by hundreds of megabytes that way.)
 */
export const NETWORK_REQUESTS_PER_TAB_MAX = 200;
/** Characters of a request's body kept with it: a form post reads whole, an upload is cut with its length said. */
export const REQUEST_BODY_KEPT_MAX_CHARS = 50_000;
/** Longest console message kept, characters: a page that logs a megabyte a line cannot grow the server. */
export const CONSOLE_TEXT_MAX_CHARS = 4_000;

export type ConsoleLevel = 'error' | 'warning' | 'info' | 'debug';

export interface ConsoleEntry { level: ConsoleLevel; type: string; text: string; where: string; page: number }
/** One request of a tab, as the page's CDP session told it. */
export interface RequestEntry {
  /** The browser's id for it (a redirect's hops share one): what its response body is asked by. */
  id: string;
  url: string;
  method: string;
  /** As Playwright names resource types: document, stylesheet, image, fetch, xhr, script… */
  type: string;
  /** The main frame's own navigation to a new document. */
  navigation: boolean;
  page: number;
  requestHeaders: Record<string, string>;
  /** The body sent, cut at REQUEST_BODY_KEPT_MAX_CHARS; undefined when it had none. */
  postData?: string;
  postDataLength?: number;
  response?: { status: number; statusText: string; headers: Record<string, string>; mimeType: string };
  failure?: string;
  /** The body has arrived whole (or the request failed): its body can be asked for. */
  done: boolean;
  /** Later hops of a redirect replace this one: its body is no longer the browser's to give. */
  redirected?: boolean;
}

export interface PageRecords {
  console: ConsoleEntry[];
  consoleDropped: number;
  requests: RequestEntry[];
  requestsDropped: number;
  /** Counts main-frame navigations: entries carry the page they came from. */
  page: number;
  /** The page's CDP session, which response bodies are asked of. */
  session?: CDPSession;
  /** Told of each request as it starts and as it ends (finished or failed): what an action started. */
  watchers: Set<(e: RequestEntry, phase: 'start' | 'end') => void>;
}

const records = new WeakMap<Tab, PageRecords>();

export function recordsOf(tab: Tab): PageRecords {
  let r = records.get(tab);
  if (!r) {
    r = { console: [], consoleDropped: 0, requests: [], requestsDropped: 0, page: 0, watchers: new Set() };
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

/** Where an uncaught error was thrown, `url:line`, from the first frame of its stack that names a script ('' when none does). */
function thrownAt(stack: string | undefined): string {
  const m = /\(?((?:https?|file|data|blob):[^\s()]+?):(\d+):\d+\)?\s*$/m.exec(stack?.split('\n').find((l) => /^\s+at /.test(l)) ?? '');
  return m ? `${m[1]}:${m[2]}` : '';
}

/** A console entry as a line of an answer: its kind, its text, and where it was logged. */
export function consoleLine(m: ConsoleEntry): string {
  return `- [${m.type === 'pageerror' ? 'error (uncaught)' : m.type}] ${shownDataUrls(m.text)}${m.where ? ` @ ${shownDataUrls(m.where)}` : ''}`;
}

/** How many console entries the tab has had in all, kept and dropped: a mark to read what came after. */
export function consoleMark(tab: Tab): number {
  const r = recordsOf(tab);
  return r.consoleDropped + r.console.length;
}

/** The entries the tab logged since `mark` that are still kept, and how many of them went to make room. */
export function consoleSince(tab: Tab, mark: number): { entries: ConsoleEntry[]; lost: number } {
  const r = recordsOf(tab);
  const fresh = r.consoleDropped + r.console.length - mark;
  const kept = Math.min(fresh, r.console.length);
  return { entries: kept > 0 ? r.console.slice(r.console.length - kept) : [], lost: Math.max(0, fresh - kept) };
}

/** Header names lower-cased, as the agent reads them (HTTP/2 sends them so; HTTP/1 may not). */
function lowerKeys(h: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = String(v);
  return out;
}

interface CdpRequest { url: string; method: string; headers: Record<string, string>; postData?: string; hasPostData?: boolean }
interface CdpResponse { status: number; statusText: string; headers: Record<string, string>; mimeType: string }

/** Starts keeping the page's console and requests for its tab (a rebuilt page is recorded again); requests need the page's CDP session. */
export function recordPage(tab: Tab, page: Page, session?: CDPSession): void {
  const r = recordsOf(tab);
  const keep = (e: ConsoleEntry): void => {
    r.console.push(e);
    if (r.console.length > CONSOLE_MESSAGES_PER_TAB_MAX) { r.console.shift(); r.consoleDropped++; }
  };
  page.on('console', (m) => {
    const loc = m.location();
    keep({ level: levelOf(m.type()), type: m.type(), text: bounded(m.text()), where: loc.url ? `${loc.url}:${loc.lineNumber + 1}` : '', page: r.page });
  });
  page.on('pageerror', (e) => keep({ level: 'error', type: 'pageerror', text: bounded(`${e.name}: ${e.message}`), where: thrownAt(e.stack), page: r.page }));
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) r.page++; });
  if (session) recordRequests(r, session);
}

/** The page's requests from its CDP session's Network events: plain data, bounded per tab. */
function recordRequests(r: PageRecords, session: CDPSession): void {
  r.session = session;
  // By the browser's request id, the latest hop of each request still in the buffer.
  const live = new Map<string, RequestEntry>();
  let mainFrame: string | undefined;
  const forget = (e: RequestEntry): void => { if (live.get(e.id) === e) live.delete(e.id); };
  const tell = (e: RequestEntry, phase: 'start' | 'end'): void => { for (const w of r.watchers) w(e, phase); };
  session.on('Network.requestWillBeSent', (ev: { requestId: string; loaderId: string; frameId?: string; type?: string; request: CdpRequest; redirectResponse?: CdpResponse }) => {
    const before = live.get(ev.requestId);
    if (before && ev.redirectResponse) {
      before.response = { status: ev.redirectResponse.status, statusText: ev.redirectResponse.statusText, headers: lowerKeys(ev.redirectResponse.headers), mimeType: ev.redirectResponse.mimeType };
      before.done = true;
      before.redirected = true;
      tell(before, 'end');
    }
    const navigation = ev.type === 'Document' && ev.requestId === ev.loaderId && ev.frameId !== undefined && ev.frameId === mainFrame;
    const body = ev.request.postData;
    const e: RequestEntry = {
      id: ev.requestId, url: ev.request.url, method: ev.request.method, type: (ev.type ?? 'Other').toLowerCase(), navigation,
      // The document request of a navigation belongs to the page it loads.
      page: navigation ? r.page + 1 : r.page,
      requestHeaders: lowerKeys(ev.request.headers),
      ...(body !== undefined ? { postData: body.slice(0, REQUEST_BODY_KEPT_MAX_CHARS), postDataLength: body.length } : {}),
      done: false,
    };
    live.set(ev.requestId, e);
    r.requests.push(e);
    tell(e, 'start');
    if (r.requests.length > NETWORK_REQUESTS_PER_TAB_MAX) { forget(r.requests.shift()!); r.requestsDropped++; }
  });
  session.on('Network.requestWillBeSentExtraInfo', (ev: { requestId: string; headers: Record<string, string> }) => {
    const e = live.get(ev.requestId);
    if (e) e.requestHeaders = { ...e.requestHeaders, ...lowerKeys(ev.headers) };
  });
  session.on('Network.responseReceived', (ev: { requestId: string; response: CdpResponse }) => {
    const e = live.get(ev.requestId);
    if (e) e.response = { status: ev.response.status, statusText: ev.response.statusText, headers: { ...lowerKeys(ev.response.headers), ...(e.response?.headers ?? {}) }, mimeType: ev.response.mimeType };
  });
  session.on('Network.responseReceivedExtraInfo', (ev: { requestId: string; headers: Record<string, string> }) => {
    const e = live.get(ev.requestId);
    if (!e) return;
    const raw = lowerKeys(ev.headers);
    // The raw headers (set-cookie among them) may come before or after the response itself.
    if (e.response) e.response.headers = { ...e.response.headers, ...raw };
    else e.response = { status: 0, statusText: '', headers: raw, mimeType: '' };
  });
  session.on('Network.loadingFinished', (ev: { requestId: string }) => { const e = live.get(ev.requestId); if (e) { e.done = true; tell(e, 'end'); } });
  session.on('Network.loadingFailed', (ev: { requestId: string; errorText: string; canceled?: boolean }) => {
    const e = live.get(ev.requestId);
    if (e) { e.failure = ev.canceled ? 'canceled' : ev.errorText; e.done = true; tell(e, 'end'); }
  });
  void session.send('Page.getFrameTree').then((t) => { mainFrame = (t as { frameTree: { frame: { id: string } } }).frameTree.frame.id; }, () => undefined);
  void session.send('Network.enable', { maxPostDataSize: REQUEST_BODY_KEPT_MAX_CHARS }).catch(() => undefined);
}
