/**
 * Viewers of the browser surface: who watches which tab, who holds the controller role, and the
 * layout that follows the role. Every rule here is the server's: a watcher's input and arrows are
 * refused here, not just hidden by a client. Its parts are in `viewing/`: the layout a surface
 * asks for, each shown tab's layout and its changes, the controller role, the controller's
 * gesture queue and its gestures' replay on the page, the tab list a token sees and who follows
 * it, the tabs' sound, and the frame pipeline each watched host runs.
 */
import type { ClientMessageOf, ServerMessage, ViewRecording } from '../../shared/protocol.js';
import { ForgeError } from '../../shared/errors.js';
import { DEFAULT_PAGE_HEIGHT, DEFAULT_PAGE_WIDTH } from '../../shared/limits.js';
import type { ViewerHub, ViewerInfo } from '../viewers.js';
import { parseSeat } from '../seat.js';
import { tabAllowed, type ViewerGrant } from '../../shared/grants.js';
import type { ProfileBrowser } from './profile.js';
import type { Tab } from './tabs.js';
import { NavigationArrows } from './history.js';
import type { Listener } from './sound.js';
import { layoutSize, surfaceSize, type Size } from './viewing/layout.js';
import { GestureQueue, type InputMessage } from './viewing/gestures.js';
import { drive, type DriveRoom } from './viewing/drive.js';
import { HostFrameSources } from './viewing/host-frames.js';
import { TabSound } from './viewing/tab-sound.js';
import { tabList, visibleTabs, type TabListMessage } from './viewing/tab-list.js';
import { TabListFollowers } from './viewing/tab-list-followers.js';
import { TabLayouts } from './viewing/tab-layouts.js';
import { TabRoles } from './viewing/roles.js';

export interface BrowserDirectory {
  profile(key: string): ProfileBrowser;
  /** The profile a viewer sees: its seat's (by the seat's project) or the org's own. */
  profileKeyFor(seat?: string): string;
  /** Every profile the org has (its own and each project's): the home's seat cards list them all. */
  orgProfileKeys(): string[];
  /** The page a hand-off link shows. */
  handOffPage(id: string): { profileKey: string; pageId: string; tabNumber: number } | undefined;
  handOffOpened(id: string): void;
  /** A person asked to see the profile's browser (a hand-off's Open, the strip's show): its host starts when none runs. */
  wanted?(profile: ProfileBrowser, why: string): void;
  /** Whether a parked hand-off names this page id. */
  handOffNames(pageId: string): boolean;
  /** [browser] idle_minutes: the strip's hover says when an unwatched host closes. */
  idleMinutes: number;
  /** A viewer began showing the tab (a use of it; an unloaded tab is rebuilt before its capture starts). */
  tabShown?(p: ProfileBrowser, tab: Tab): Promise<void>;
  /** The tab's last viewer left it. */
  tabHidden?(p: ProfileBrowser, tab: Tab): void;
}

/**
 * How long a surface whose tab vanished waits before saying the tab is not open, ms: a killed
 * host's pages report closed before its process exit is seen, and the host's own death sentence
 * is the truer one to show.
 */
export const TAB_GONE_GRACE_MS = 1_500;

/** `w`×`h`: the page layout this viewer asks for; `box`: its surface as it measures it, the space its points come in. */
interface Watch { profile: ProfileBrowser; tab: Tab; pageId: string; w: number; h: number; box: Size; since: number }
/** `surface`: the viewer's box as it last measured it (CSS px, unclamped); `gestures`: its input, one after another. */
interface ViewerState { info: ViewerInfo; watch?: Watch; surface: Size; focusAsks?: number; gestures?: GestureQueue }

export class BrowserViewing {
  private viewers = new Map<number, ViewerState>();
  private readonly roles = new TabRoles();
  /** Who follows which profile's tab list. */
  private readonly lists: TabListFollowers;
  /** Each shown tab's layout, at its layout owner's size (see layoutOwner) or a recording's. */
  private readonly layouts: TabLayouts;
  /** The watched hosts' frame pipelines, and each shown tab's frame id. */
  private readonly frames: HostFrameSources;
  /** Gestures whose acknowledgement the page never sent within INPUT_ACK_DEADLINE_MS: /metrics shows them. */
  unackedInputs = 0;
  private readonly sound: TabSound;
  readonly arrows: NavigationArrows;
  /** Called after every view push: the role or the watchers of the tab may have moved. */
  readonly viewPushed: Array<(p: ProfileBrowser, tab: Tab) => void> = [];
  /** What the controller's gestures need of this viewing (see viewing/drive.ts). */
  private readonly room: DriveRoom;

  constructor(private readonly hub: ViewerHub, private readonly dir: BrowserDirectory) {
    this.arrows = new NavigationArrows((tab, msg) => this.sendToWatchers(tab, msg));
    this.frames = new HostFrameSources(hub);
    this.layouts = new TabLayouts(this.frames, (tab) => {
      const w = this.layoutOwner(tab)?.watch;
      return w && { w: w.w, h: w.h, host: w.profile.host };
    });
    this.room = {
      layoutOf: (tab) => this.layouts.of(tab),
      frames: this.frames,
      controls: (viewer, tab) => this.roles.holds(viewer, tab),
      send: (viewer, msg) => this.hub.send(viewer, msg),
      unacked: () => { this.unackedInputs++; },
    };
    this.lists = new TabListFollowers(hub, { list: (p, grant) => this.tabList(p, grant), profile: (key) => this.dir.profile(key), orgProfileKeys: () => this.dir.orgProfileKeys() });
    this.sound = new TabSound(hub, {
      lookedAt: () => this.lists.followed(),
      profile: (key) => this.dir.profile(key),
      changed: (p) => this.profileChanged(p),
    });
  }

  attach(): void {
    const hub = this.hub;
    this.sound.start();
    hub.onOpen((info) => this.viewers.set(info.id, { info, surface: { w: DEFAULT_PAGE_WIDTH, h: DEFAULT_PAGE_HEIGHT } }));
    hub.onClose((info) => { void this.detach(info.id).catch(() => undefined); this.viewers.delete(info.id); this.lists.forget(info.id); });
    hub.on('tabs', (v, m) => this.subscribe(v, m));
    hub.on('attach', (v, m) => this.attachTab(v, m));
    hub.on('detach', async (v) => { await this.detach(v.id); });
    hub.on('resize', (v, m) => this.resize(v, m));
    hub.on('control', (v, m) => this.control(v, m));
    hub.on('nav', (v, m) => this.nav(v, m));
    hub.on('input', (v, m) => this.queueInput(v, m));
  }

  /** A gesture joins its viewer's queue (see GestureQueue: newest move only, presses in order, bounded). */
  private queueInput(v: ViewerInfo, m: InputMessage): Promise<void> {
    const s = this.state(v);
    s.gestures ??= new GestureQueue((g) => this.input(v, g));
    return s.gestures.push(m);
  }

  private state(v: ViewerInfo): ViewerState {
    let s = this.viewers.get(v.id);
    if (!s) { s = { info: v, surface: { w: DEFAULT_PAGE_WIDTH, h: DEFAULT_PAGE_HEIGHT } }; this.viewers.set(v.id, s); }
    return s;
  }

  private profileFor(v: ViewerInfo, seat: string | undefined): ProfileBrowser {
    const s = seat ?? v.query.get('seat') ?? undefined;
    if (s) {
      const parsed = parseSeat(s);
      if (parsed.org !== v.org) throw new ForgeError('auth', `this viewer's token is for org ${v.org}, not ${parsed.org}`);
    }
    return this.dir.profile(this.dir.profileKeyFor(s));
  }

  // ---- the tab list ----

  private subscribe(v: ViewerInfo, m: ClientMessageOf<'tabs'>): void {
    if (v.handoff) throw new ForgeError('auth', 'a hand-off link shows its own page only; it has no tab list');
    this.lists.follow(v, this.profileFor(v, m.seat), m.every);
  }

  tabList(p: ProfileBrowser, grant: ViewerGrant): TabListMessage {
    return tabList(p, grant, (t) => this.sound.isAudible(p.key, t.targetId), this.dir.idleMinutes);
  }

  /** A profile's tabs changed: its followers get the list, viewers of a closed tab are told. */
  profileChanged(p: ProfileBrowser): void {
    this.lists.changed(p);
    const rebuilt = new Set<Tab>();
    for (const s of this.viewers.values()) {
      const w = s.watch;
      if (w?.profile !== p) continue;
      // A closed tab, or the last one handed back to the host blank under a new page id.
      if (this.closedUnder(w)) {
        // A dying host reports its pages closed before its process is reaped: its death sentence, said meanwhile, wins.
        setTimeout(() => { if (s.watch === w && this.closedUnder(w)) void this.lose(s, `tab ${w.tab.number} is not open`); }, TAB_GONE_GRACE_MS).unref();
        continue;
      }
      // Whatever replaced the tab's page (a rebuild, a revive), its arrows follow the page it has now.
      this.arrows.follow(w.tab, p);
      if (this.layouts.moved(w.tab)) rebuilt.add(w.tab);
    }
    // A crashed page rebuilt in a fresh window: its viewers follow the new window and its history.
    for (const tab of rebuilt) {
      void this.layouts.relayout(tab).then(() => { this.pushView(tab); return this.arrows.refresh(tab, p); }).catch(() => undefined);
    }
  }

  /** The watched tab closed (or, the last one, was handed back to the host blank), and no opener takes the surface back. */
  private closedUnder(w: Watch): boolean {
    const p = w.profile;
    return p.tabs.get(w.pageId) !== w.tab && !(w.tab.openerPageId && p.tabs.get(w.tab.openerPageId));
  }

  /**
   * The takeover follows a popup in: every surface showing `from` moves to `to` (a popup that
   * opened, or the opener its popup handed back to), with its own size and role kept.
   */
  follow(p: ProfileBrowser, from: Tab, to: Tab): void {
    for (const s of this.viewers.values()) {
      if (s.watch?.profile !== p || s.watch.tab !== from || s.info.handoff || !tabAllowed(s.info.grant, to.pageId, to.owner ?? undefined)) continue;
      const wasController = this.roles.holds(s.info.id, from);
      void this.attachTab(s.info, { t: 'attach', pageId: to.pageId, w: s.surface.w, h: s.surface.h })
        .then(() => { if (wasController) return this.control(s.info, { t: 'control', take: true }); })
        .catch((e: Error) => this.hub.send(s.info.id, { t: 'error', for: 'attach', message: e.message }));
    }
  }

  hostEnded(p: ProfileBrowser, sentence: string): void {
    for (const s of this.viewers.values()) if (s.watch?.profile === p) void this.lose(s, sentence);
    this.frames.hostEnded(p.key);
  }

  private async lose(s: ViewerState, message: string): Promise<void> {
    const w = s.watch;
    if (!w) return;
    this.hub.send(s.info.id, { t: 'gone', tab: w.tab.number, message });
    await this.detach(s.info.id);
  }

  // ---- attach, detach, layout ----

  private async attachTab(v: ViewerInfo, m: ClientMessageOf<'attach'>): Promise<void> {
    const s = this.state(v);
    s.surface = surfaceSize(m.w, m.h);
    if (v.handoff) {
      // A link shows the page its hand-off named, and nothing else.
      const page = this.dir.handOffPage(v.handoff);
      if (!page) throw new ForgeError('hand_off', 'this hand-off has been answered; the link shows nothing more');
      const hp = this.dir.profile(page.profileKey);
      if (!hp.host?.alive) this.dir.wanted?.(hp, 'a hand-off was opened');
      if (!(hp.host?.alive && hp.tabs.get(page.pageId))) throw this.missingPage(hp, page.pageId, v.grant);
      m = { ...m, pageId: page.pageId, tab: undefined, seat: undefined };
      this.dir.handOffOpened(v.handoff);
    }
    const p = v.handoff ? this.dir.profile(this.dir.handOffPage(v.handoff)!.profileKey) : this.profileFor(v, m.seat);
    if (!v.handoff) this.lists.followIfNone(v, p.key);
    if (!p.host?.alive) this.dir.wanted?.(p, 'a person showed the browser');
    // What this viewer may watch: the link's page, or the tabs its token covers.
    const mayWatch = (t: Tab | undefined): t is Tab => !!t?.owner && (v.handoff !== undefined || tabAllowed(v.grant, t.pageId, t.owner));
    if (m.pageId !== undefined && !(p.host?.alive && mayWatch(p.tabs.get(m.pageId)))) throw this.missingPage(p, m.pageId, v.grant);
    if (!p.host?.alive || !p.tabs.all().some((t) => mayWatch(t))) throw new ForgeError('tab_not_open', 'the profile has no tab to show yet');
    let tab: Tab | undefined;
    if (m.pageId !== undefined) {
      tab = p.tabs.get(m.pageId)!;
    } else if (m.tab !== undefined) {
      tab = p.tabs.byNumber(m.tab);
      if (!mayWatch(tab)) throw new ForgeError('tab_not_open', `tab ${m.tab} is not open`);
    } else {
      tab = p.tabs.all().find((t) => mayWatch(t))!;
    }
    if (s.watch?.tab === tab) { await this.layouts.relayout(tab); this.pushView(tab); return; }
    await this.detach(v.id);
    const host = p.host;
    s.watch = { profile: p, tab, pageId: tab.pageId, ...layoutSize(s.surface), box: s.surface, since: Date.now() };
    p.viewers++;
    p.lastActivity = Date.now();
    await this.dir.tabShown?.(p, tab);
    const frames = await this.frames.of(host);
    if (s.watch?.tab !== tab) return; // re-attached meanwhile
    await this.layouts.relayout(tab);
    this.hub.post({ t: 'watch', viewer: v.id, source: frames.source, frame: this.frameId(tab) });
    this.pushView(tab);
    await this.arrows.refresh(tab, p);
  }

  /** The refusal for a page id no open tab carries: in a hand-off's own words when a parked ask names it, with the tabs open now. */
  private missingPage(p: ProfileBrowser, pageId: string, grant: ViewerGrant): ForgeError {
    pageId = pageId.slice(0, 80);
    const open = visibleTabs(p, grant).map((t) => `tab ${t.number} (${t.pageId})`).join(', ') || 'none';
    return new ForgeError('tab_not_open', this.dir.handOffNames(pageId)
      ? `the page the hand-off named (${pageId}) is gone from profile ${p.key}; tabs open now: ${open}`
      : `the page ${pageId} is not open in profile ${p.key}; tabs open now: ${open}`);
  }

  async detach(viewer: number): Promise<void> {
    const s = this.viewers.get(viewer);
    const w = s?.watch;
    if (!s || !w) return;
    s.watch = undefined;
    w.profile.viewers = Math.max(0, w.profile.viewers - 1);
    this.hub.post({ t: 'watch', viewer, source: 0, frame: null });
    this.roles.left(viewer, w.tab);
    this.soundFollows(w.profile);
    if (this.watchersOf(w.tab).length === 0) {
      this.dir.tabHidden?.(w.profile, w.tab);
      this.layouts.forget(w.tab);
      this.arrows.forget(w.tab);
      const frames = w.profile.host ? this.frames.started(w.profile.host) : undefined;
      if (frames) void frames.then((f) => f.pipeline.uncapture(w.tab.targetId)).catch(() => undefined);
      return;
    }
    await this.layouts.relayout(w.tab).catch(() => undefined);
    this.pushView(w.tab);
  }

  private async resize(v: ViewerInfo, m: ClientMessageOf<'resize'>): Promise<void> {
    const s = this.state(v);
    s.surface = surfaceSize(m.w, m.h);
    if (!s.watch) return;
    Object.assign(s.watch, layoutSize(s.surface), { box: s.surface });
    await this.layouts.relayout(s.watch.tab);
    this.pushView(s.watch.tab);
  }

  /** The page is laid out at the controller's surface, else at the longest-watching viewer's. */
  private layoutOwner(tab: Tab): ViewerState | undefined {
    const c = this.roles.holder(tab);
    const watchers = this.watchersOf(tab);
    return watchers.find((s) => s.info.id === c) ?? watchers.sort((a, b) => a.watch!.since - b.watch!.since || a.info.id - b.info.id)[0];
  }

  /**
   * An agent's recording of the tab starts (or, with null, ends): its viewers are told, and the
   * page is laid out at the file's size meanwhile, then at theirs again. Answers whether anyone
   * views the tab (when nobody does, its layout is the recorder's to set).
   */
  async recording(tab: Tab, take: ViewRecording | null): Promise<boolean> {
    this.layouts.setTake(tab, take);
    if (!this.watchersOf(tab).length) return false;
    await this.layouts.relayout(tab);
    this.pushView(tab);
    return true;
  }

  // ---- the role ----

  private async control(v: ViewerInfo, m: ClientMessageOf<'control'>): Promise<void> {
    const w = this.state(v).watch;
    if (!w) throw new ForgeError('bad_request', 'attach to a tab before taking control');
    if (this.roles.set(v.id, w.tab, m.take) && w.tab.owner) this.hub.acted(v, w.tab.owner, m.take ? 'took control' : 'released control', `tab ${w.tab.number}${w.tab.title ? ` "${w.tab.title}"` : ''}`);
    await this.layouts.relayout(w.tab);
    this.pushView(w.tab);
  }

  /** The host's sound follows the role: each controller hears the tab it controls (see TabSound). */
  private soundFollows(p: ProfileBrowser): void {
    const heard: Listener[] = [];
    for (const s of this.viewers.values()) {
      const w = s.watch;
      if (w?.profile !== p || !this.roles.holds(s.info.id, w.tab)) continue;
      heard.push({ targetId: w.tab.targetId, frame: this.frameId(w.tab), viewer: s.info.id });
    }
    this.sound.follow(p, heard);
  }

  private async input(v: ViewerInfo, m: InputMessage): Promise<void> {
    await drive(this.room, this.state(v), this.roles.driving(v.id, this.state(v).watch, 'driving the page'), m.ev);
  }

  private async nav(v: ViewerInfo, m: ClientMessageOf<'nav'>): Promise<void> {
    const w = this.roles.driving(v.id, this.state(v).watch, 'moving through the page\'s history');
    await this.arrows.go(w.tab, w.profile, m.dir);
  }

  // ---- pushes ----

  watchersOf(tab: Tab): ViewerState[] {
    return [...this.viewers.values()].filter((s) => s.watch?.tab === tab);
  }

  private sendToWatchers(tab: Tab, msg: ServerMessage): void {
    const ids = this.watchersOf(tab).map((s) => s.info.id);
    if (ids.length) this.hub.send(ids, msg);
  }

  controllerOf(tab: Tab): number | null { return this.roles.holder(tab); }

  /** Every viewer of the profile: subscribed to its tab list or watching one of its tabs. */
  viewersOfProfile(p: ProfileBrowser): number[] {
    return [...this.viewers.values()].filter((s) => this.lists.ownOf(s.info.id, p.key) || s.watch?.profile === p).map((s) => s.info.id);
  }

  /** Who holds the role, pushed to every viewer of the tab, each with its own id. */
  pushView(tab: Tab): void {
    const layout = this.layouts.of(tab) ?? { w: DEFAULT_PAGE_WIDTH, h: DEFAULT_PAGE_HEIGHT };
    const controller = this.roles.holder(tab);
    const take = this.layouts.takeOf(tab);
    let url = '';
    try { url = tab.page.url(); } catch { /* closed */ }
    for (const s of this.watchersOf(tab)) {
      this.hub.send(s.info.id, { t: 'view', tab: tab.number, pageId: tab.pageId, profile: s.watch!.profile.key, you: s.info.id, controller, width: layout.w, height: layout.h, title: tab.title, url, frame: this.frameId(tab), ...(take ? { recording: take } : {}) });
    }
    const p = this.watchersOf(tab)[0]?.watch?.profile;
    if (p) this.soundFollows(p);
    if (p) for (const cb of this.viewPushed) cb(p, tab);
  }

  private frameId(tab: Tab): number {
    return this.frames.frameId(tab);
  }

  /** The id a tab's frames carry, once it was ever shown; /metrics labels its per-tab figures with it. */
  frameOf(tab: Tab): number | undefined { return this.frames.frameOf(tab); }

  /** The running hosts' encoders, as /metrics shows them. */
  encoders(): ReturnType<HostFrameSources['encoders']> { return this.frames.encoders(); }

  async stop(): Promise<void> {
    this.sound.stop();
    await this.frames.stop();
  }
}

