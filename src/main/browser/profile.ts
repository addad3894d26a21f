/**
 * One org profile's browser: its host (started on first real need), its driver, its tabs and
 * their owners. Every page call runs through `call`, which logs it and answers a host's death
 * in forge's words; the next call after a death starts a fresh host on the same profile.
 */
import type { Dialog, Download, FileChooser, Page } from 'playwright-core';
import { MemoryRelief } from './memory-relief.js';
import { BrowserHost, type HostExit } from './host/host.js';
import { ForgeError, exitCause, isForgeError } from '../../shared/errors.js';
import { withHeldReadings } from './answered-readings.js';
import { HIDDEN_AGENT_TABS_DEFAULT, HIDDEN_PERSON_TABS_DEFAULT, NAVIGATION_TIMEOUT_MS, POPUPS_PER_PAGE_MAX } from '../../shared/limits.js';
import { Driver, REFUSED_URL_MAX_CHARS, type PageOpener } from './driver.js';
import type { OpenRefusal } from './init-script.js';
import { RefusedPopups, frameOf, judgeFirstLoad, type PopupFirstLoad } from './popup-gate.js';
import { TabCallQueue } from './call-queue.js';
import type { UrlPolicy } from './url-policy.js';
import { TabRegistry, chooserRefusal, dialogRefusal, type DialogKind, type Tab, type TabUser } from './tabs.js';
import { overBudget, type BudgetCaps } from './tab-budget.js';
import { log } from '../logging.js';
import { recordPage } from './page-records.js';

/** How long an orderly Browser.close may take before the host's processes are signalled, ms. */
const BROWSER_CLOSE_WAIT_MS = 2_000;
/** A page call's outer bound, ms: past every driver timeout, it catches a host that stopped answering. */
const PAGE_CALL_DEADLINE_MS = 90_000;
/** After a page closes under a call, how long to wait for its host's exit to be reported, ms. */
const HOST_DEATH_GRACE_MS = 2_000;
/** Longest wait for an announced popup to become a tab, ms; past it the call answers without it. */
const POPUP_REGISTER_MAX_MS = 5_000;

export interface ProfileEvents {
  /** The tab list or a tab's state changed (for viewers' pushes). */
  changed(profile: ProfileBrowser): void;
  /** The host died or ended: viewers of its tabs get the sentence. */
  hostEnded(profile: ProfileBrowser, sentence: string): void;
  /** A page opened a popup (a surface showing the opener follows it in). */
  popupOpened?(profile: ProfileBrowser, opener: Tab, popup: Tab): void;
  /** A popup closed (a surface showing it hands back to the opener). */
  popupClosed?(profile: ProfileBrowser, popup: Tab, opener: Tab): void;
  /** A page opened its file chooser (already held as tab.fileChooser for the agent's tool). */
  fileChooser?(profile: ProfileBrowser, tab: Tab, chooser: FileChooser): void;
  /** The agent answered a tab's file chooser (a person's picker for it closes). */
  chooserAnswered?(profile: ProfileBrowser, tab: Tab): void;
  /** A page started a download. */
  download?(profile: ProfileBrowser, tab: Tab, download: Download): void;
}

export interface CallOptions {
  /** Calls that may run while the tab's dialog is held (answering it, listing, closing). */
  allowDialog?: boolean;
  /** Calls that may run while the tab's file chooser is open (answering it, handing it to a person, opening another tab). */
  allowChooser?: boolean;
  /** Calls whose work leaves the tab's own page alone (opening another tab): an unloaded tab stays unloaded. */
  leavesPage?: boolean;
}

export interface ProfileOptions {
  allowFileUrls: boolean;
  /** [browser] hidden_agent_tabs and hidden_person_tabs. */
  caps: BudgetCaps;
  /** [browser] spare_window: the host keeps one blank window ready for the next open or rebuild (driver.ts). */
  spareWindow?: boolean;
  /** Whether some viewer shows the tab now: a shown tab is never unloaded. */
  shown: (tab: Tab) => boolean;
  /** [agent] snapshot: an action answers with what changed ("diff", the default) or the whole page ("full"). */
  snapshot?: 'diff' | 'full';
  /** On a cluster node: takes the profile's lease before a host starts, or refuses in words (see cluster/leases.ts). */
  claim?: (key: string) => Promise<void>;
}

const DEFAULT_OPTIONS: ProfileOptions = { allowFileUrls: false, caps: { agent: HIDDEN_AGENT_TABS_DEFAULT, person: HIDDEN_PERSON_TABS_DEFAULT }, shown: () => false };

/** The notice a seat whose tabs went with a host reads once, at the top of its next browser call. */
/** Resolves when `host` exits or after `ms`, whichever comes first, and leaves no listener on the host. */
function exitOrAfter(host: BrowserHost, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let unlisten: (() => void) | undefined;
    const done = (): void => { clearTimeout(timer); unlisten?.(); resolve(); };
    const timer = setTimeout(done, ms);
    unlisten = host.onExit(done);
  });
}

export function restartNotice(at: number, cause: string): string {
  const d = new Date(at);
  const hhmm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return `the browser restarted at ${hhmm} (${cause}): your tabs are gone; cookies and logins are kept`;
}

/** One page call waiting for, then taking, its turn on a tab. */
interface Turn<T> {
  seat: string;
  tool: string;
  tab: Tab;
  host: BrowserHost;
  driver: Driver;
  work: (tab: Tab, driver: Driver) => Promise<T>;
  opts: CallOptions & { tab?: Tab };
  outcome: string;
}

export class ProfileBrowser {
  host?: BrowserHost;
  driver?: Driver;
  readonly tabs = new TabRegistry();
  lastActivity = Date.now();
  /** Viewers attached to this profile's tabs; the idle close skips a profile someone watches. */
  viewers = 0;
  /** Page calls running now; the idle clock never closes a host under a call. */
  inFlight = 0;
  private starting?: Promise<void>;
  /** Seats whose tabs went with a host (its death, idle close, browser_end_host) and who have not yet been told. */
  private restartNotices = new Map<string, string>();
  private liveSeats = new Set<string>();
  /** Pages forge closes under a tab that lives on (a crashed page replaced, a tab unloaded): their close is not the tab's. */
  private rebuilding = new WeakSet<Page>();
  /** Unloaded tabs being rebuilt, shared by the agent's call and a viewer's attach meanwhile. */
  private reviving = new Map<Tab, Promise<string>>();
  /** Asks the host's renderers to give memory back after unloads (see memory-relief.ts). */
  readonly relief = new MemoryRelief(async () => {
    await this.driver?.cdp.send('Memory.simulatePressureNotification' as never, { level: 'moderate' } as never)
      .catch((e: Error) => log.warn({ profile: this.key, err: e.message }, 'the host did not take the memory-pressure signal'));
  });
  /** Seats that had a tab on the current host: its death is news to each of them. */
  private hostSeats = new Set<string>();
  /** Each tab's page calls, one at a time. */
  private readonly queue = new TabCallQueue();
  /** A seat's current tab being found or opened, shared by its calls meanwhile. */
  private resolvingTab = new Map<string, Promise<Tab>>();
  /** Popups announced by the browser and not yet registered as tabs, by target id. */
  private pendingPopups = new Map<string, { opener: string; registered: Promise<void>; done: () => void }>();
  /** Popups the popup rules closed at their first load before their page reached the registry: it is never listed. */
  private readonly refusedPopups = new RefusedPopups();
  /** Each page's popups let through at another site (their target ids): the popup rules allow one live at a time. */
  private readonly crossSitePopups = new Map<string, Set<string>>();

  constructor(readonly key: string, readonly dir: string, private readonly events: ProfileEvents, private readonly opts: ProfileOptions = DEFAULT_OPTIONS) {}

  /** How an action's answer shows the page: what changed since the seat's last snapshot, or the whole page. */
  snapshotMode(): 'diff' | 'full' { return this.opts.snapshot ?? 'diff'; }

  /** What the profile's browser opens now: the config's file: rule and the running host's DevTools port. */
  urlPolicy(): UrlPolicy {
    return { allowFileUrls: this.opts.allowFileUrls, cdpPort: this.host?.cdpPort ?? 0 };
  }

  get cacheRoot(): string { return this.dir; }
  /** The agent's browser_file_upload answered the tab's chooser. */
  chooserAnswered(tab: Tab): void { this.events.chooserAnswered?.(this, tab); }
  /** Tells the profile's listeners its tab states changed (a hold taken or released). */
  announce(): void { this.events.changed(this); }

  /** Whether the idle clock may close this profile's host now. */
  idleFor(ms: number): boolean {
    if (!this.host || this.starting || this.inFlight > 0 || this.viewers > 0) return false;
    if (this.tabs.all().some((t) => t.heldBy)) return false;
    return Date.now() - this.lastActivity >= ms;
  }

  /** Whether a host is starting now: its tab list is not known yet. */
  get isStarting(): boolean { return this.starting !== undefined; }

  get hostState(): 'connected' | 'idle' | 'none' {
    if (!this.host?.alive) return 'none';
    return this.driver ? 'connected' : 'idle';
  }

  seatActive(seat: string, active: boolean): void {
    if (active) this.liveSeats.add(seat); else this.liveSeats.delete(seat);
    this.events.changed(this);
  }
  seatInUse = (seat: string): boolean => this.liveSeats.has(seat);

  /**
   * The seat's last session ended: its tabs close with it, except a tab a parked hand-off holds,
   * which closes when that ask resolves (`askResolved`).
   */
  async seatEnded(seat: string): Promise<void> {
    if (!this.host?.alive) return;
    for (const tab of this.tabs.ownedBy(seat)) if (!tab.heldBy) await this.closeTab(tab);
  }

  /** A parked hand-off on `tab` resolved: a tab whose seat went meanwhile goes now. */
  async askResolved(tab: Tab): Promise<void> {
    if (tab.owner && !this.seatInUse(tab.owner) && this.tabs.get(tab.pageId) === tab && !tab.heldBy) await this.closeTab(tab);
  }

  /**
   * Starts the host ahead of its first page call, on a first real need that is not one (a seat's
   * session opening under the profile, a hand-off's Open, the strip's show), so that call finds it
   * up. A start that fails is logged; the next call starts again and says why in its answer.
   */
  warm(why: string): void {
    if (this.host?.alive || this.starting) return;
    this.lastActivity = Date.now();
    this.ensure().catch((e: Error) => log.warn({ profile: this.key, why, err: e.message }, 'browser host warm start failed'));
  }

  /** Starts the host and its driver when none runs; concurrent callers share one start. */
  async ensure(): Promise<{ host: BrowserHost; driver: Driver }> {
    if (this.host?.alive && this.driver) return { host: this.host, driver: this.driver };
    if (!this.starting) {
      this.starting = this.start().finally(() => { this.starting = undefined; });
    }
    await this.starting;
    if (!this.host?.alive || !this.driver) {
      throw new ForgeError('host_exited', this.host?.dead?.sentence ?? `the browser host for ${this.key} did not stay up; the next call brings it back`);
    }
    return { host: this.host, driver: this.driver };
  }

  private async start(): Promise<void> {
    // On a cluster node, a host starts only under the profile's lease (a refusal names its owner).
    await this.opts.claim?.(this.key);
    const host = new BrowserHost({ profileKey: this.key, profileDir: this.dir });
    const t0 = Date.now();
    await host.start();
    this.host = host;
    this.hostSeats.clear();
    host.onExit((e) => this.hostExited(host, e));
    let driver: Driver;
    try {
      driver = await Driver.attach(host);
      await driver.guardRequests({ allowFileUrls: this.opts.allowFileUrls, cdpPort: host.cdpPort });
    } catch (e) {
      await host.stop();
      throw e;
    }
    if (!host.alive) { await driver.close(); return; }
    this.driver = driver;
    driver.onForeignPage((page, targetId, opener) => this.foreignPage(page, targetId, opener));
    driver.onPopupCreated((targetId, openerId) => this.popupCreated(targetId, openerId));
    driver.onOpenRefused((page, r) => this.openRefused(page, r));
    driver.onPopupFirstLoad((load) => this.popupFirstLoad(load));
    for (const { page, targetId } of await driver.existingPages()) {
      if (!this.tabs.byTarget(targetId)) this.wire(this.tabs.add({ page, targetId, owner: null, title: '' }));
    }
    if (this.opts.spareWindow) driver.useSpareWindow();
    log.info({ profile: this.key, hostPid: host.pid, port: host.cdpPort, display: host.display, cacheRoot: this.cacheRoot, audioPid: host.audio?.pid, ms: Date.now() - t0 }, 'browser host started');
    if (host.audioProblem) log.warn({ profile: this.key, reason: host.audioProblem }, 'the browser host started muted: its audio sink did not start');
    this.events.changed(this);
  }

  private hostExited(host: BrowserHost, e: HostExit): void {
    if (this.host !== host) return;
    // Pages may report closed before the process is reaped, so the tab list may be empty already.
    const how = exitCause(e.signal, e.code);
    this.noteRestart(e.died === 'xvfb' ? `its display ${how}` : how);
    this.tabs.clear();
    const driver = this.driver;
    this.driver = undefined;
    this.host = undefined;
    void driver?.close();
    log.warn({ profile: this.key, hostPid: e.pid, died: e.died, diedPid: e.diedPid, signal: e.signal, code: e.code }, 'browser host exited');
    this.events.hostEnded(this, e.sentence);
    this.events.changed(this);
  }

  /**
   * Ends the host on purpose (idle close, browser_end_host, stop). Tabs end with it; logins stay.
   * `tell`: the seats that had tabs read `reason` in their next call's answer (`except` the seat
   * that ended it, whose own answer says so); a stopping server tells nobody.
   */
  async end(reason: string, tell: { except?: string } | false = false): Promise<void> {
    // A start under way (a warm start) ends with the rest, not after them.
    if (this.starting) await this.starting.catch(() => undefined);
    const host = this.host;
    if (!host) return;
    if (tell) this.noteRestart(reason, tell.except);
    else this.hostSeats.clear();
    this.host = undefined;
    const driver = this.driver;
    this.driver = undefined;
    this.relief.stop();
    this.tabs.clear();
    // Browser.close is Chromium's own orderly exit: the profile's cookies reach the disk.
    if (driver) {
      await Promise.race([driver.cdp.send('Browser.close').catch(() => undefined), new Promise((r) => setTimeout(r, BROWSER_CLOSE_WAIT_MS))]);
      await Promise.race([host.exited, new Promise((r) => setTimeout(r, BROWSER_CLOSE_WAIT_MS))]);
      await driver.close();
    }
    await host.stop();
    log.info({ profile: this.key, hostPid: host.pid, reason }, 'browser host ended');
    this.events.hostEnded(this, `the browser host was closed (${reason}); the next call brings it back`);
    this.events.changed(this);
  }

  /** Every seat that had a tab on the ending host gets the notice for its next call; one that already waits is kept (it is older news). */
  private noteRestart(cause: string, except?: string): void {
    const seats = new Set([...this.hostSeats, ...this.tabs.all().map((t) => t.owner).filter((o): o is string => !!o)]);
    const notice = restartNotice(Date.now(), cause);
    for (const seat of seats) if (seat !== except && !this.restartNotices.has(seat)) this.restartNotices.set(seat, notice);
    this.hostSeats.clear();
  }

  /** The restart notice for the seat's next call, once: its tabs went with a host since its last call. */
  takeRestartNotice(seat: string): string | undefined {
    const n = this.restartNotices.get(seat);
    this.restartNotices.delete(seat);
    return n;
  }

  /**
   * Runs one page call: the host up, the seat's tab resolved (held dialogs refuse before the
   * driver is touched), the work raced against the host's death and a dialog opening.
   */
  async call<T>(seat: string, tool: string, work: (tab: Tab, driver: Driver) => Promise<T>, opts: CallOptions & { tab?: Tab } = {}): Promise<{ value?: T; dialogOpened?: Tab; tab: Tab }> {
    const t0 = Date.now();
    this.lastActivity = t0;
    this.inFlight++;
    let outcome = 'ok';
    let hostPid = this.host?.pid ?? 0;
    let port = this.host?.cdpPort ?? 0;
    let reached: BrowserHost | undefined;
    try {
      const { host, driver } = await this.ensure();
      reached = host;
      hostPid = host.pid;
      port = host.cdpPort;
      const tab = opts.tab ?? (await this.seatTab(seat, driver));
      const turn: Turn<T> = { seat, tool, tab, host, driver, work, opts, outcome };
      try {
        return await this.queue.run(tab, () => `tab ${tab.number} (${tab.pageId})`, () => this.runOnTab(turn));
      } finally {
        outcome = turn.outcome;
      }
    } catch (caught) {
      let e = caught;
      // Resolving the seat's tab on a host that is dying (its browser closed, its exit not yet
      // reaped) fails in the driver's words: the host's death, once reported, is the answer.
      if (!isForgeError(e) && reached) {
        await exitOrAfter(reached, HOST_DEATH_GRACE_MS);
        if (reached.dead) e = new ForgeError('host_exited', reached.dead.sentence);
      }
      outcome = isForgeError(e) ? e.kind : 'error';
      // The call's own answer is the death: the notice it left for the seat's next call is said.
      if (isForgeError(e, 'host_exited')) this.restartNotices.delete(seat);
      throw e;
    } finally {
      this.inFlight--;
      this.lastActivity = Date.now();
      log.info({ seat, tool, profile: this.key, hostPid, port, cacheRoot: this.cacheRoot, ms: Date.now() - t0, outcome }, 'page call');
    }
  }

  /** One call's turn on its tab: the dialog rule, then the work raced against the host's death, a dialog opening and the call's deadline. */
  private async runOnTab<T>(turn: Turn<T>): Promise<{ value?: T; dialogOpened?: Tab; tab: Tab }> {
    turn.tab.busy++;
    try {
      return await this.runTurn(turn);
    } finally {
      turn.tab.busy--;
      // Every agent call is a use of its tab; one that only opened another tab used that one (fresh, so newest).
      if (turn.opts.leavesPage) void this.keepBudget(); else this.markUse(turn.tab, 'agent');
    }
  }

  private async runTurn<T>(turn: Turn<T>): Promise<{ value?: T; dialogOpened?: Tab; tab: Tab }> {
    const { seat, tool, tab, host, driver, work, opts } = turn;
    // The host may have died while this call waited for its turn: its death is the answer.
    if (host.dead) throw new ForgeError('host_exited', host.dead.sentence);
    if (this.tabs.get(tab.pageId) !== tab || (!opts.tab && tab.owner !== seat)) {
      throw new ForgeError('tab_not_open', `tab ${tab.number} was closed before this call ran; ${this.tabs.describeFor(seat)}`);
    }
    if (tab.dialog && !opts.allowDialog) throw new ForgeError('dialog_waiting', dialogRefusal(tab));
    if (tab.fileChooser && !opts.allowChooser) throw new ForgeError('chooser_waiting', chooserRefusal(tab));
    if (!opts.leavesPage) {
      tab.lastUsed = Date.now();
      tab.lastUser = 'agent';
      if (tab.unloaded) tab.notices.push(await this.revive(tab));
      // The page raised a dialog as it loaded again: it holds the tab, and the call's answer says so.
      if (tab.dialog && !opts.allowDialog) { turn.outcome = 'dialog'; return { dialogOpened: tab, tab }; }
    }
    // The host's death, listened for while this call runs only: a reaction on the host's own
    // exit promise would hold every call's answer for as long as the host lives.
    let unlisten = (): void => undefined;
    const death = new Promise<never>((_, reject) => { unlisten = host.onExit((e) => reject(new ForgeError('host_exited', e.sentence))); });
    let dialogWaiter: (() => void) | undefined;
    const dialog = new Promise<'dialog'>((resolve) => { dialogWaiter = () => resolve('dialog'); });
    if (!opts.allowDialog) tab.dialogWaiters.add(dialogWaiter!);
    // The work's snapshots become its seat's readings only if its answer goes out (answered-readings.ts).
    const call = withHeldReadings(() => work(tab, driver));
    const job = call.result.catch(async (e: unknown) => {
      // The driver may see its pages close before the process is reaped: a closed page is the
      // host's death when the host exits within the grace.
      if (!isForgeError(e) || e.kind === 'tab_not_open' || e.kind === 'page_crashed') {
        await exitOrAfter(host, HOST_DEATH_GRACE_MS);
        if (host.dead) throw new ForgeError('host_exited', host.dead.sentence);
      }
      throw e;
    });
    job.catch(() => undefined); // a job a dialog or a death overtook must not become unhandled
    death.catch(() => undefined);
    let deadline: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      deadline = setTimeout(() => void this.stalledCall(tool, tab, host, driver).then(reject), PAGE_CALL_DEADLINE_MS);
    });
    try {
      const first = await Promise.race([job.then((value) => ({ value })), dialog, death, stalled]);
      if (first === 'dialog') { turn.outcome = 'dialog'; return { dialogOpened: tab, tab }; }
      call.answered();
      return { value: first.value, tab };
    } finally {
      clearTimeout(deadline);
      unlisten();
      tab.dialogWaiters.delete(dialogWaiter!);
    }
  }

  /**
   * A call past its deadline: when the browser still answers, it is the page that did not (it
   * goes on running); only a browser that does not answer either is a host not answering.
   */
  private async stalledCall(tool: string, tab: Tab, host: BrowserHost, driver: Driver): Promise<ForgeError> {
    const s = PAGE_CALL_DEADLINE_MS / 1000;
    if (await driver.answers()) {
      return new ForgeError('timeout', `the page in tab ${tab.number} (${tab.pageId}) did not answer ${tool} within ${s} s; the page still runs and the browser answers — take a browser_snapshot to see where it is`);
    }
    return new ForgeError('host_not_answering', `the host is not answering: ${tool} on tab ${tab.number} had no answer within ${s} s, and the browser did not answer either (host pid ${host.pid})`);
  }

  /** The seat's current tab; concurrent first calls of a seat share one resolution (one window, not one each). */
  private seatTab(seat: string, driver: Driver): Promise<Tab> {
    const cur = this.tabs.currentOf(seat);
    if (cur) return Promise.resolve(cur);
    let resolving = this.resolvingTab.get(seat);
    if (!resolving) {
      resolving = this.tabFor(seat, driver).finally(() => this.resolvingTab.delete(seat));
      this.resolvingTab.set(seat, resolving);
    }
    return resolving;
  }

  /** The seat's current tab: its own, else the adopted boot tab, else a new window. */
  async tabFor(seat: string, driver: Driver): Promise<Tab> {
    const cur = this.tabs.currentOf(seat);
    if (cur) return cur;
    const own = this.tabs.ownedBy(seat)[0];
    if (own) { this.tabs.setCurrent(seat, own); return own; }
    const boot = this.tabs.bootTab();
    if (boot) {
      boot.owner = seat;
      this.hostSeats.add(seat);
      this.tabs.setCurrent(seat, boot);
      this.events.changed(this);
      return boot;
    }
    return this.openTab(seat, driver);
  }

  async openTab(seat: string, driver: Driver): Promise<Tab> {
    const { page, targetId } = await driver.openWindowTab();
    const tab = this.tabs.byTarget(targetId) ?? this.wire(this.tabs.add({ page, targetId, owner: seat, title: '' }));
    tab.owner = seat;
    this.hostSeats.add(seat);
    this.tabs.setCurrent(seat, tab);
    this.events.changed(this);
    return tab;
  }

  /**
   * Replaces a crashed page with a fresh window at the same address, keeping the tab's number,
   * page id and owner: the driver never recovers a page whose renderer died.
   */
  async rebuildTab(tab: Tab, url: string): Promise<void> {
    const { driver } = await this.ensure();
    const old = tab.page;
    this.rebuilding.add(old);
    // Opened at its address (the spare window sent there, or a window made there): one load of the page.
    const { page, targetId, ready } = await driver.openWindowTab(url || 'about:blank');
    tab.page = page;
    tab.targetId = targetId;
    tab.crashed = false;
    tab.unloaded = undefined;
    tab.dialog = undefined;
    tab.fileChooser = undefined;
    this.wire(tab);
    old.removeAllListeners();
    await old.close().catch(() => undefined);
    // At its address first (a spare window is sent there), then loaded.
    await ready;
    // A dialog the page raises as it loads holds its load: the rebuild is done then, the dialog held.
    await this.loadedOrHeld(tab, page);
    this.events.changed(this);
  }

  /** Resolves once the page has loaded, a dialog holds it, or NAVIGATION_TIMEOUT_MS passed. */
  private async loadedOrHeld(tab: Tab, page: Page): Promise<void> {
    if (tab.dialog) return;
    let waiter!: () => void;
    const held = new Promise<void>((r) => { waiter = r; });
    tab.dialogWaiters.add(waiter);
    try {
      await Promise.race([page.waitForLoadState('load', { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => undefined), held]);
    } finally {
      tab.dialogWaiters.delete(waiter);
    }
  }

  /**
   * Closes a tab, or blanks it when it is the host's last window. The choice and the tab's removal
   * happen together, before anything is awaited: closes running at once (sessions ending
   * together) each see the windows the others have already taken, so one of them always keeps
   * the last window.
   */
  async closeTab(tab: Tab): Promise<void> {
    const owner = tab.owner;
    await this.closeWindowOf(tab);
    // A seat that closed its last tab has nothing a restart could take.
    if (owner && this.tabs.ownedBy(owner).length === 0) this.hostSeats.delete(owner);
  }

  private async closeWindowOf(tab: Tab): Promise<void> {
    if (this.tabs.get(tab.pageId) !== tab) return; // closed meanwhile by another call
    if (tab.unloaded) { this.forget(tab); return; } // its window is gone already
    if (this.loadedWindows() === 1) {
      // The host's last window: blanked and handed back as its boot tab, since closing it would end Chromium.
      const held = tab.dialog;
      this.tabs.release(tab);
      if (held) await held.dialog.dismiss().catch(() => undefined);
      await tab.page.goto('about:blank', { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => undefined);
      tab.title = '';
      this.events.changed(this);
      return;
    }
    this.forget(tab);
    // A held dialog goes with its tab; beforeunload is not run again.
    await tab.page.close({ runBeforeUnload: false }).catch(() => undefined);
  }

  /** Windows open now: every tab but the unloaded ones. */
  private loadedWindows(): number {
    return this.tabs.all().filter((t) => !t.unloaded).length;
  }

  /** A use of the tab (an agent's call, a person showing it or leaving it): its group's least recently used tabs past the cap unload. */
  markUse(tab: Tab, who: TabUser): void {
    tab.lastUsed = Date.now();
    tab.lastUser = who;
    void this.keepBudget();
  }

  /** Unloads every tab past its group's cap of hidden loaded tabs ([browser] hidden_agent_tabs, hidden_person_tabs). */
  private async keepBudget(): Promise<void> {
    if (!this.host?.alive || !this.driver) return;
    for (const tab of overBudget(this.tabs.all(), this.opts.caps, this.opts.shown)) await this.unload(tab);
  }

  /**
   * Closes the tab's window, freeing its renderer, and keeps the tab listed with its number, page
   * id, owner, title and address; its next call or a viewer showing it rebuilds it (`revive`).
   * The host's last window is never closed: Chromium would quit with it.
   */
  private async unload(tab: Tab): Promise<void> {
    if (this.tabs.get(tab.pageId) !== tab || tab.unloaded || tab.busy > 0 || this.loadedWindows() <= 1) return;
    let url = '';
    try { url = tab.page.url(); } catch { /* closed */ }
    const page = tab.page;
    tab.unloaded = { url, at: Date.now() };
    this.rebuilding.add(page);
    page.removeAllListeners();
    await page.close({ runBeforeUnload: false }).catch(() => undefined);
    log.info({ profile: this.key, tab: tab.number, pageId: tab.pageId, owner: tab.owner, lastUser: tab.lastUser, url }, 'tab unloaded to keep the memory budget');
    this.relief.soon();
    this.events.changed(this);
  }

  /**
   * Rebuilds an unloaded tab at its address in a fresh window (same number, page id and owner);
   * the agent's call and a viewer's attach that ask at once share one rebuild. Answers the
   * sentence the tab's owner reads.
   */
  revive(tab: Tab): Promise<string> {
    let r = this.reviving.get(tab);
    if (!r) {
      const url = tab.unloaded?.url ?? '';
      tab.busy++;
      r = this.rebuildTab(tab, url)
        .then(() => `tab ${tab.number} (${tab.pageId}) had been unloaded to save memory and was reloaded at ${url || 'about:blank'}: its in-page state and form input are lost, cookies stay`)
        .finally(() => { tab.busy--; this.reviving.delete(tab); });
      this.reviving.set(tab, r);
    }
    return r;
  }

  /** The rebuild of an unloaded tab under way now, if any (a raw CDP socket waits for it before it attaches). */
  reviveInFlight(tab: Tab): Promise<string> | undefined { return this.reviving.get(tab); }

  /**
   * A tab's window is gone or going: out of the registry, and a popup hands its seat and its
   * viewers back to its opener. `refused`: a popup the popup rules closed at its first load; its
   * opener's owner reads the refusal, not that it opened and closed.
   */
  private forget(tab: Tab, refused = false): void {
    this.crossSitePopups.delete(tab.pageId);
    const opener = tab.openerPageId ? this.tabs.get(tab.openerPageId) : undefined;
    this.tabs.remove(tab.pageId);
    if (opener && refused) opener.notices = opener.notices.filter((n) => !n.startsWith(`tab ${opener.number} opened a popup: tab ${tab.number} (`));
    else if (opener && tab.owner) opener.notices.push(`the popup in tab ${tab.number} closed; tab ${opener.number} is your current tab again`);
    if (opener) this.events.popupClosed?.(this, tab, opener);
    this.events.changed(this);
  }

  private popupCreated(targetId: string, openerId: string): void {
    const opener = this.tabs.byTarget(openerId);
    if (!opener || this.tabs.byTarget(targetId)) return;
    let done!: () => void;
    const registered = new Promise<void>((r) => { done = r; });
    const timer = setTimeout(() => this.pendingPopups.delete(targetId), POPUP_REGISTER_MAX_MS);
    this.pendingPopups.set(targetId, { opener: opener.pageId, registered, done: () => { clearTimeout(timer); done(); } });
  }

  /**
   * A new popup's first load, judged by the popup rules (popup-gate.ts) before it is sent: false
   * fails it and closes its window, and the opener's owner reads which rule in its next answer.
   */
  private async popupFirstLoad(load: PopupFirstLoad): Promise<boolean> {
    const opener = this.tabs.byTarget(load.openerId);
    if (!opener) return true;
    const popups = this.crossSitePopups.get(opener.pageId) ?? new Set<string>();
    // A popup is live while it is a tab, or still becoming one.
    for (const id of popups) if (!this.tabs.byTarget(id) && !this.pendingPopups.has(id)) popups.delete(id);
    let topUrl = '';
    try { topUrl = opener.page.url(); } catch { /* closed */ }
    const { refusal, crossSite } = await judgeFirstLoad(load, {
      topUrl,
      frame: (frameId) => frameOf(this.driver?.session(opener.page), this.driver?.cdp, frameId),
      liveCrossSite: () => popups.size,
    });
    if (refusal) {
      // Its window may be a tab already (the driver saw its page before its first request): it goes quietly.
      const early = this.tabs.byTarget(load.targetId);
      if (early) this.forget(early, true);
      else this.refusedPopups.add(load.targetId);
      // A call waiting for this popup to become a tab waits no more: it never will.
      this.pendingPopups.get(load.targetId)?.done();
      this.pendingPopups.delete(load.targetId);
      this.openRefused(opener.page, { rule: refusal.rule, url: load.url.slice(0, REFUSED_URL_MAX_CHARS), frame: refusal.frame.slice(0, REFUSED_URL_MAX_CHARS), atLoad: true });
      return false;
    }
    if (crossSite) { popups.add(load.targetId); this.crossSitePopups.set(opener.pageId, popups); }
    return true;
  }

  /** A window.open the popup rules refused: the tab's owner reads which rule, in its next answer. */
  private openRefused(page: Page, r: OpenRefusal): void {
    const tab = this.tabs.all().find((t) => t.page === page);
    if (!tab?.owner) return;
    const asked = JSON.stringify(r.url);
    let origin = '';
    try { origin = new URL(page.url()).origin; } catch { /* closed */ }
    // Refused in the page, window.open answered null; caught at the window's first load (a link, a form, a later navigation), the window closed unloaded.
    const opened = r.atLoad ? `opened a window at ${asked}` : r.link ? `followed a link to ${asked} into a new window` : `called window.open(${asked})`;
    const outcome = r.atLoad ? 'refused, it did not load and its window was closed' : r.link ? 'refused, nothing opened' : 'refused, it answered null';
    const sentence = r.rule === 'second-cross-site'
      ? (r.atLoad
        ? `tab ${tab.number} (${tab.pageId}) opened a second popup at another site (at ${asked}) while ${this.livePopups(tab)} is open: ${outcome}; close that popup first`
        : `tab ${tab.number} (${tab.pageId}) asked for a second popup at another site (${r.link ? `a link to ${asked}` : `window.open(${asked})`}) while ${this.livePopups(tab)} is open: ${r.link ? outcome : `${outcome} and nothing opened`}; close that popup first`)
      : r.rule === 'cross-origin-frame'
        ? `a frame from another origin (${r.frame}) in tab ${tab.number} (${tab.pageId}) ${opened}: ${outcome}; such a frame opens no window`
        : `a frame (${r.frame}) in tab ${tab.number} (${tab.pageId}) ${opened}: ${outcome}; a frame opens windows only at its page's own origin (${origin})`;
    // A page that keeps asking is told once per answer, not once per ask.
    if (!tab.notices.includes(sentence)) tab.notices.push(sentence);
    log.info({ profile: this.key, tab: tab.number, pageId: tab.pageId, rule: r.rule, frame: r.frame }, 'window.open refused by the popup rules');
  }

  /** The popups a tab holds now, in words. */
  private livePopups(tab: Tab): string {
    const open = [...tab.popups].map((id) => this.tabs.get(id)).filter((t): t is Tab => !!t);
    if (open.length === 0) return 'its first popup';
    return open.map((t) => `tab ${t.number} (${t.pageId})`).join(', ');
  }

  /** Whether some viewer shows `tab` now. */
  isShown(tab: Tab): boolean {
    return this.opts.shown(tab);
  }

  /**
   * Waits until every popup the tab opened during a call is a registered tab, so the call's answer
   * (and the next call) already knows it; bounded by POPUP_REGISTER_MAX_MS. A call that may have
   * opened one (`barrier`) first lets the browser answer a barrier: a popup its work opened is
   * announced before that answer. A call that only reads the page waits only for popups already announced.
   */
  async settlePopups(tab: Tab, barrier: boolean): Promise<void> {
    if (barrier) await this.driver?.barrier();
    const waits = [...this.pendingPopups.values()].filter((p) => p.opener === tab.pageId).map((p) => p.registered);
    if (waits.length) await Promise.race([Promise.all(waits), new Promise((r) => setTimeout(r, POPUP_REGISTER_MAX_MS))]);
  }

  private async foreignPage(page: Page, targetId: string, opener: PageOpener | undefined): Promise<void> {
    const pending = this.pendingPopups.get(targetId);
    this.pendingPopups.delete(targetId);
    if (this.refusedPopups.take(targetId)) {
      pending?.done();
      await page.close().catch(() => undefined);
      return;
    }
    try {
      if (opener?.severed) this.registerSevered(page, targetId, opener.targetId);
      else await this.registerForeign(page, targetId, opener?.targetId);
    } finally {
      pending?.done();
    }
  }

  private async registerForeign(page: Page, targetId: string, openerId: string | undefined): Promise<void> {
    if (this.tabs.byTarget(targetId)) return;
    const opener = openerId ? this.tabs.byTarget(openerId) : undefined;
    if (opener && opener.popups.size >= POPUPS_PER_PAGE_MAX) {
      opener.notices.push(`tab ${opener.number} (${opener.pageId}) already holds ${POPUPS_PER_PAGE_MAX} popups; another window.open was refused and its window closed`);
      await page.close().catch(() => undefined);
      return;
    }
    const owner = opener?.owner ?? null;
    const tab = this.wire(this.tabs.add({ page, targetId, owner, title: '', ...(opener ? { openerPageId: opener.pageId } : {}) }));
    this.readTitle(tab);
    if (opener) {
      opener.popups.add(tab.pageId);
      this.events.popupOpened?.(this, opener, tab);
      if (owner) {
        this.tabs.setCurrent(owner, tab);
        opener.notices.push(`tab ${opener.number} opened a popup: tab ${tab.number} (${tab.pageId}), now your current tab`);
      }
    }
    this.events.changed(this);
  }

  /**
   * A page opened with noopener or noreferrer: its window has no opener, so it is no popup. It is
   * the opening seat's tab (its page asked for it), listed but not made current, not followed by
   * a surface and handing nothing back when it closes.
   */
  private registerSevered(page: Page, targetId: string, openerTargetId: string): void {
    if (this.tabs.byTarget(targetId)) return;
    const from = this.tabs.byTarget(openerTargetId);
    const owner = from?.owner ?? null;
    const tab = this.wire(this.tabs.add({ page, targetId, owner, title: '' }));
    this.readTitle(tab);
    if (from && owner) {
      from.notices.push(`tab ${from.number} opened tab ${tab.number} (${tab.pageId}) without an opener (noopener): it is not a popup and tab ${from.number} stays your current tab; browser_tabs select drives it`);
    }
    this.events.changed(this);
  }

  /** A window's first load may have come before it was wired: its title is read once now. */
  private readTitle(tab: Tab): void {
    tab.page.title().then((t) => { if (t && t !== tab.title) { tab.title = t; this.events.changed(this); } }, () => undefined);
  }

  private wire(tab: Tab): Tab {
    const page = tab.page;
    recordPage(tab, page, this.driver?.session(page));
    const held = (dialog: Dialog): void => {
      tab.dialog = { kind: dialog.type() as DialogKind, message: dialog.message(), defaultValue: dialog.defaultValue(), dialog };
      for (const w of tab.dialogWaiters) w();
      this.events.changed(this);
    };
    page.on('dialog', held);
    // One its first script raised before this listener was on.
    const early = this.driver?.takeEarlyDialog(page);
    if (early) held(early);
    page.on('filechooser', (chooser) => { tab.fileChooser = chooser; this.events.fileChooser?.(this, tab, chooser); });
    // A new document took the chooser's input with the old one: nothing is asked of anyone now.
    page.on('domcontentloaded', () => { tab.fileChooser = undefined; });
    page.on('download', (download) => this.events.download?.(this, tab, download));
    page.on('crash', () => { tab.crashed = true; this.events.changed(this); });
    page.on('close', () => {
      if (this.rebuilding.has(page) || tab.page !== page || !this.tabs.get(tab.pageId)) return;
      this.forget(tab);
    });
    const refreshTitle = (): void => {
      page.title().then((t) => { if (t !== tab.title) { tab.title = t; this.events.changed(this); } }, () => undefined);
    };
    page.on('load', refreshTitle);
    page.on('domcontentloaded', refreshTitle);
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) { tab.crashed = false; refreshTitle(); } });
    return tab;
  }
}
