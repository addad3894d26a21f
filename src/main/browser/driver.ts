/**
 * The driver: one playwright-core `connectOverCDP` connection per host. It attaches within a
 * bound, starts every page with forge's init script, keeps pages focused, and opens each new tab
 * in a window of its own. It answers no dialog itself: the profile holds them.
 */
import { chromium, type Browser, type BrowserContext, type CDPSession, type Dialog, type Page } from 'playwright-core';
import { ForgeError } from '../../shared/errors.js';
import { DRIVER_ATTACH_TIMEOUT_MS, DEFAULT_PAGE_WIDTH, DEFAULT_PAGE_HEIGHT, NAVIGATION_TIMEOUT_MS } from '../../shared/limits.js';
import type { BrowserHost } from './host/host.js';
import { PARK_LEFT } from '../../workers/cdp/windows.js';
import { installTracker } from './action-tracker.js';
import { OPEN_REFUSED_BINDING, PAGE_INIT_SCRIPT, type OpenRefusal, type OpenRule } from './init-script.js';
import { blockedRequestPatterns, requestBlocked, type UrlPolicy } from './url-policy.js';
import type { PopupFirstLoad } from './popup-gate.js';
import { boundPlaywrightRecords } from './playwright-records.js';

/** Attach attempts before the host is named and ended: the first bound, then one fresh driver. */
const ATTACH_ATTEMPTS = 2;
/** Longest wait for the browser to answer a barrier, ms: a browser that stalls must not stall the call's answer. */
const BARRIER_MAX_MS = 2_000;

/**
 * `opener`: the page that opened it, when one did; `severed` when that open was noopener or
 * noreferrer (Chromium still names the opener then, but the new page has no window.opener).
 */
export type NewPageListener = (page: Page, targetId: string, opener: PageOpener | undefined) => void;
export interface PageOpener { targetId: string; severed: boolean }
interface TargetFacts { targetId: string; openerId?: string; canAccessOpener?: boolean }
/** A request the browser-wide Fetch rule paused; `frameId`: the frame it loads in (a page's main frame id is its target id). */
interface PausedRequest { requestId: string; request: { url: string }; frameId?: string; resourceType?: string }

/**
 * New popups whose first document request has not come yet, at most: a popup waits here only
 * between its window's creation and its first load (or its close), so this bounds a page that
 * opens windows that never load.
 */
const POPUPS_AWAITING_LOAD_MAX = 256;

/**
 * How long a dialog a page raised before the registry wired it is kept for it, ms: a window
 * opened at its address (a rebuilt tab, a popup) can raise one in its first script, before its
 * page has a listener. A page never wired by then (a window closed at once) has it dismissed,
 * as Playwright would have.
 */
const EARLY_DIALOG_KEEP_MS = 10_000;

/**
 * Wait after the spare window is taken (or the driver attaches) before the next one is made, ms:
 * making a window and its renderer beside the load that took the last one would slow that load
 * on a small machine, and a burst of opens takes one spare, then windows made as before.
 */
export const SPARE_WINDOW_REFILL_MS = 1_500;
/**
 * Addresses a spare window is sent to: a page of the web. Any other (a `file:` page where the
 * config allows it, a refused scheme's error page) opens in a window made for it, as before.
 */
const SPARE_WINDOW_SCHEMES = /^https?:/i;

/**
 * Longest wait for a window the driver asked for to be handed over, ms: one closed before the
 * driver held it never is, and the wait must not hold other new pages (see pageArrived) for good.
 */
const WINDOW_ARRIVAL_MAX_MS = NAVIGATION_TIMEOUT_MS;

/** Tries at a history reset a page refuses mid-commit ("not attached to an active page"), and the wait between them, ms. */
const HISTORY_RESET_TRIES = 5;
const HISTORY_RESET_RETRY_MS = 50;

/** Leaves the page's history holding its current page alone (the spare's blank page gone from behind it). */
async function forgetEarlierPages(session: CDPSession): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await session.send('Page.resetNavigationHistory');
      return;
    } catch (e) {
      if (attempt >= HISTORY_RESET_TRIES) throw e;
      await new Promise((r) => setTimeout(r, HISTORY_RESET_RETRY_MS));
    }
  }
}

/** A window the driver opened: `ready` resolves once its page is at the address asked (it has committed). */
export interface OpenedWindow { page: Page; targetId: string; ready: Promise<void> }

/** Longest text of a refused open's address forge repeats, characters: a page chooses it. */
export const REFUSED_URL_MAX_CHARS = 200;
const OPEN_RULES: ReadonlySet<string> = new Set<OpenRule>(['cross-origin-frame', 'frame-other-origin', 'second-cross-site']);

/** A window.open the page script refused, as its frame reported it; undefined for anything else a page sends that name. */
function readRefusal(frameUrl: string, arg: unknown): OpenRefusal | undefined {
  const a = arg as Partial<OpenRefusal> | null;
  if (!a || typeof a !== 'object' || typeof a.rule !== 'string' || !OPEN_RULES.has(a.rule)) return undefined;
  return { rule: a.rule as OpenRule, url: String(a.url ?? '').slice(0, REFUSED_URL_MAX_CHARS), frame: frameUrl.slice(0, REFUSED_URL_MAX_CHARS), ...(a.link === true ? { link: true } : {}) };
}

function openerOf(info: TargetFacts): PageOpener | undefined {
  return info.openerId ? { targetId: info.openerId, severed: info.canAccessOpener === false } : undefined;
}

export class Driver {
  private creating = 0;
  private arrived = new Map<string, { page: Page; opener?: PageOpener }>();
  private waiting = new Map<string, (p: Page) => void>();
  private listener: NewPageListener = () => undefined;
  private popupListener: (targetId: string, openerId: string) => void = () => undefined;
  private refusedListener: (page: Page, refusal: OpenRefusal) => void = () => undefined;
  /** Judges a popup's first load (popup-gate.ts): true lets it through. */
  private popupGate: (load: PopupFirstLoad) => Promise<boolean> = async () => true;
  /** New popups' targets until their first document request: their opener, its frame, and whether the open was noopener. */
  private readonly awaitingLoad = new Map<string, Omit<PopupFirstLoad, 'url'>>();
  private sessions = new WeakMap<Page, CDPSession>();
  /** A blank window with its renderer, made ahead of the next open (see openWindowTab). */
  private spare?: { page: Page; targetId: string };
  private spareMaking = false;
  private spareWanted = false;
  private spareTimer?: NodeJS.Timeout;
  private closed = false;
  /** Dialogs raised by pages no listener held yet, until the registry wires their page. */
  private readonly earlyDialogs = new Map<Page, { dialog: Dialog; timer: NodeJS.Timeout }>();

  private constructor(readonly browser: Browser, readonly context: BrowserContext, readonly cdp: CDPSession) {}

  static async attach(host: BrowserHost, boundMs = DRIVER_ATTACH_TIMEOUT_MS): Promise<Driver> {
    let last: unknown;
    for (let i = 0; i < ATTACH_ATTEMPTS; i++) {
      try {
        boundPlaywrightRecords();
        const browser = await chromium.connectOverCDP(host.wsEndpoint, { timeout: boundMs });
        const context = browser.contexts()[0];
        if (!context) throw new Error('the browser has no default context');
        const cdp = await browser.newBrowserCDPSession();
        const driver = new Driver(browser, context, cdp);
        await context.addInitScript(PAGE_INIT_SCRIPT);
        await installTracker(context);
        await context.exposeBinding(OPEN_REFUSED_BINDING, (source, arg: unknown) => {
          const r = readRefusal(source.frame.url(), arg);
          if (r) driver.refusedListener(source.page, r);
        });
        context.on('page', (page) => driver.pageArrived(page));
        // A context listener keeps Playwright from dismissing a dialog a page raised before its own listener was on.
        context.on('dialog', (dialog) => driver.dialogRaised(dialog));
        // Popups are announced here long before the driver has prepared their page.
        cdp.on('Target.targetCreated', (e: { targetInfo: TargetFacts & { type: string; openerFrameId?: string } }) => {
          const t = e.targetInfo;
          if (t.type !== 'page' || !t.openerId) return;
          driver.awaitLoad({ targetId: t.targetId, openerId: t.openerId, ...(t.openerFrameId ? { openerFrameId: t.openerFrameId } : {}), severed: t.canAccessOpener === false });
          driver.popupListener(t.targetId, t.openerId);
        });
        cdp.on('Target.targetDestroyed', (e: { targetId: string }) => driver.awaitingLoad.delete(e.targetId));
        await cdp.send('Target.setDiscoverTargets', { discover: true });
        return driver;
      } catch (e) {
        last = e;
        if (!host.alive) break;
      }
    }
    throw new ForgeError('host_not_answering', `the host is not answering: no driver could attach to ${host.profileKey} (pid ${host.pid}) within ${boundMs / 1000} s (${(last as Error)?.message?.split('\n')[0] ?? 'unknown'})`);
  }

  /**
   * Stops every page, frame, popup and worker of the browser from loading what the policy
   * refuses, whoever asked (a link, a script, a redirect): the browser-wide Fetch rule pauses
   * only matching requests, and each is failed as blocked or let through.
   */
  async guardRequests(policy: UrlPolicy): Promise<void> {
    this.cdp.on('Fetch.requestPaused', (e: PausedRequest) => { void this.judgeRequest(e, policy); });
    // Every document request pauses too, for the popup rules' judge of a new popup's first load.
    await this.cdp.send('Fetch.enable', { patterns: [...blockedRequestPatterns(policy), { urlPattern: '*', resourceType: 'Document' }] });
  }

  private async judgeRequest(e: PausedRequest, policy: UrlPolicy): Promise<void> {
    let allowed = !requestBlocked(e.request.url, policy);
    // A popup's main frame id is its target id: its first document is judged by the popup rules.
    const popup = allowed && e.resourceType === 'Document' && e.frameId ? this.awaitingLoad.get(e.frameId) : undefined;
    if (popup) {
      this.awaitingLoad.delete(popup.targetId);
      allowed = await this.popupGate({ ...popup, url: e.request.url }).catch(() => false);
    }
    const answer = allowed
      ? this.cdp.send('Fetch.continueRequest', { requestId: e.requestId })
      : this.cdp.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' });
    await answer.catch(() => undefined); // the request's page may be gone meanwhile
    if (popup && !allowed) await this.cdp.send('Target.closeTarget', { targetId: popup.targetId }).catch(() => undefined);
  }

  private awaitLoad(p: Omit<PopupFirstLoad, 'url'>): void {
    if (this.awaitingLoad.size >= POPUPS_AWAITING_LOAD_MAX) this.awaitingLoad.delete(this.awaitingLoad.keys().next().value!);
    this.awaitingLoad.set(p.targetId, p);
  }

  /** The popup rules' judge of each new popup's first document (popup-gate.ts); false fails it and closes its window. */
  onPopupFirstLoad(cb: (load: PopupFirstLoad) => Promise<boolean>): void { this.popupGate = cb; }

  /** Pages that were there before the driver attached (the host's boot tab); asked before any spare window is made. */
  async existingPages(): Promise<Array<{ page: Page; targetId: string }>> {
    const out = [];
    for (const page of this.context.pages()) out.push({ page, targetId: (await this.prepare(page)).targetId });
    return out;
  }

  /** Every page the driver did not open itself: popups and pages other clients open. */
  onForeignPage(cb: NewPageListener): void { this.listener = cb; }

  /** A page target opened by another page was created; its page is prepared later. */
  onPopupCreated(cb: (targetId: string, openerId: string) => void): void { this.popupListener = cb; }

  /** A page's window.open was refused by one of the popup rules (init-script.ts) and answered null. */
  onOpenRefused(cb: (page: Page, refusal: OpenRefusal) => void): void { this.refusedListener = cb; }

  private dialogRaised(dialog: Dialog): void {
    const page = dialog.page();
    // Its page's own listener holds it (a Playwright page is an EventEmitter; its types leave that out).
    if (!page || (page as unknown as { listenerCount(e: string): number }).listenerCount('dialog') > 0) return;
    const timer = setTimeout(() => {
      this.earlyDialogs.delete(page);
      void dialog.dismiss().catch(() => undefined);
    }, EARLY_DIALOG_KEEP_MS);
    timer.unref();
    this.earlyDialogs.set(page, { dialog, timer });
  }

  /** A dialog the page raised before it had a listener, if one is open: the registry holds it from now on. */
  takeEarlyDialog(page: Page): Dialog | undefined {
    const e = this.earlyDialogs.get(page);
    if (!e) return undefined;
    clearTimeout(e.timer);
    this.earlyDialogs.delete(page);
    return e.dialog;
  }

  /**
   * Opens a tab in a window of its own, at `url`, and answers with it once the driver holds it.
   * The driver keeps one blank window ready: making a window and starting its renderer is most of
   * an open's time (a rebuilt tab's window at its address took ~300 ms more than a navigation of a
   * live tab to the same page, measured side by side), so an open takes the spare window and
   * sends it to the address, and its history keeps that page alone, as a window opened there
   * would. A spare is made again SPARE_WINDOW_REFILL_MS later.
   */
  async openWindowTab(url = 'about:blank'): Promise<OpenedWindow> {
    const spare = url === 'about:blank' || SPARE_WINDOW_SCHEMES.test(url) ? this.takeSpare() : undefined;
    this.keepSpare();
    if (!spare) return { ...(await this.createWindow(url)), ready: Promise.resolve() };
    if (url === 'about:blank') return { ...spare, ready: Promise.resolve() };
    const session = this.sessions.get(spare.page);
    // Bounded by the navigation's own timeout; a failed load shows its error page, as a window opened there would.
    const ready = spare.page.goto(url, { waitUntil: 'commit', timeout: NAVIGATION_TIMEOUT_MS })
      .then(() => session && forgetEarlierPages(session))
      .then(() => undefined, () => undefined);
    return { ...spare, ready };
  }

  /** The spare window, if one is ready and still open. */
  private takeSpare(): { page: Page; targetId: string } | undefined {
    const spare = this.spare;
    this.spare = undefined;
    return spare && !spare.page.isClosed() ? spare : undefined;
  }

  /** From now on the driver keeps a spare window ([browser] spare_window). */
  useSpareWindow(): void {
    this.spareWanted = true;
    this.keepSpare();
  }

  /** Makes a spare window SPARE_WINDOW_REFILL_MS from now, unless one is ready or on its way. */
  private keepSpare(): void {
    if (!this.spareWanted || this.closed || this.spare || this.spareMaking || this.spareTimer) return;
    this.spareTimer = setTimeout(() => { this.spareTimer = undefined; void this.makeSpare(); }, SPARE_WINDOW_REFILL_MS);
    this.spareTimer.unref();
  }

  private async makeSpare(): Promise<void> {
    if (this.closed || this.spare || this.spareMaking) return;
    this.spareMaking = true;
    try {
      const made = await this.createWindow('about:blank');
      if (this.closed) { await made.page.close().catch(() => undefined); return; }
      this.spare = made;
      // A spare whose renderer died, or that another client closed, is not handed out.
      made.page.once('close', () => { if (this.spare?.page === made.page) { this.spare = undefined; this.keepSpare(); } });
    } catch {
      // The browser is going: the next open makes its window itself.
    } finally {
      this.spareMaking = false;
    }
  }

  /** Whether a spare window is ready for the next open (for /metrics). */
  get spareReady(): boolean { return !!this.spare && !this.spare.page.isClosed(); }

  private async createWindow(url: string): Promise<{ page: Page; targetId: string }> {
    this.creating++;
    try {
      // Born off-screen: a window shown at the screen's corner would cover a watched tab there.
      const born = { left: PARK_LEFT, top: 0, width: DEFAULT_PAGE_WIDTH, height: DEFAULT_PAGE_HEIGHT };
      const { targetId } = (await this.cdp.send('Target.createTarget', { url, newWindow: true, ...born })) as { targetId: string };
      const page = this.arrived.get(targetId)?.page ?? (await this.arrival(targetId));
      this.arrived.delete(targetId);
      return { page, targetId };
    } finally {
      this.creating--;
      if (this.creating === 0) this.flushArrived();
    }
  }

  /** The new window's page, once the driver has prepared it; a window closed before that never comes, so it is bounded. */
  private arrival(targetId: string): Promise<Page> {
    return new Promise<Page>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(targetId);
        reject(new ForgeError('host_not_answering', `the browser did not hand over a new window within ${WINDOW_ARRIVAL_MAX_MS / 1000} s`));
      }, WINDOW_ARRIVAL_MAX_MS);
      this.waiting.set(targetId, (page) => { clearTimeout(timer); resolve(page); });
    });
  }

  private async pageArrived(page: Page): Promise<void> {
    let info: TargetFacts;
    try {
      info = await this.prepare(page);
    } catch {
      return; // closed before it could be prepared
    }
    const waiter = this.waiting.get(info.targetId);
    if (waiter) { this.waiting.delete(info.targetId); waiter(page); return; }
    // While a window is being made, a page without an opener may be that window, arrived before
    // its target id did: held until the making is done. A popup is never one, so it goes on now.
    if (this.creating > 0 && !info.openerId) { this.arrived.set(info.targetId, { page, opener: openerOf(info) }); return; }
    this.listener(page, info.targetId, openerOf(info));
  }

  private flushArrived(): void {
    for (const [targetId, a] of this.arrived) this.listener(a.page, targetId, a.opener);
    this.arrived.clear();
  }

  /** The page's own CDP session (focus emulation lives as long as it does) and its target id. */
  private async prepare(page: Page): Promise<TargetFacts> {
    const session = await this.context.newCDPSession(page);
    this.sessions.set(page, session);
    const { targetInfo } = (await session.send('Target.getTargetInfo')) as { targetInfo: TargetFacts };
    // Not waited on: the renderer answers it only once a dialog its first script raised is
    // answered, and the page must reach the registry to hold that dialog (later commands on this
    // session still run after it).
    void session.send('Emulation.setFocusEmulationEnabled', { enabled: true }).catch(() => undefined);
    return { targetId: targetInfo.targetId, openerId: targetInfo.openerId, canAccessOpener: targetInfo.canAccessOpener };
  }

  session(page: Page): CDPSession | undefined { return this.sessions.get(page); }

  /**
   * Resolves once every browser event sent before it has been handled: a popup an action opened
   * is announced (Target.targetCreated) before the action's answer, and events keep their order.
   */
  async barrier(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.cdp.send('Browser.getVersion').catch(() => undefined),
      new Promise((r) => { timer = setTimeout(r, BARRIER_MAX_MS); }),
    ]);
    clearTimeout(timer);
  }

  /** Whether the browser itself answers a round trip within BARRIER_MAX_MS (a page may be stuck while it does). */
  async answers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      this.cdp.send('Browser.getVersion').then(() => true, () => false),
      new Promise<boolean>((r) => { timer = setTimeout(() => r(false), BARRIER_MAX_MS); }),
    ]);
    clearTimeout(timer);
    return answered;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.spareTimer);
    await this.browser.close().catch(() => undefined);
  }
}
