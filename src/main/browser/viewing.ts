/**
 * Viewers of the browser surface: who watches which tab, who holds the controller role, the
 * layout that follows the role, and the frame pipeline each watched host runs. Every rule here
 * is the server's: a watcher's input and arrows are refused here, not just hidden by a client.
 */
import { MOD_CTRL, MOD_META, type ClientMessage, type InputEvent, type ServerMessage, type ViewRecording } from '../../shared/protocol.js';
import { ForgeError } from '../../shared/errors.js';
import { DEFAULT_PAGE_HEIGHT, DEFAULT_PAGE_WIDTH } from '../../shared/limits.js';
import { CAPTURE_MAX_HEIGHT, CAPTURE_MAX_WIDTH } from '../../shared/capture.js';
import { FramePipeline } from './host/pipeline.js';
import type { BrowserHost } from './host/host.js';
import type { Rect } from '../../shared/capture.js';
import type { ViewerHub, ViewerInfo } from '../viewers.js';
import { parseSeat } from '../seat.js';
import { tabAllowed, type ViewerGrant } from '../../shared/grants.js';
import { log } from '../logging.js';
import type { ProfileBrowser } from './profile.js';
import type { Tab } from './tabs.js';
import { dispatchInput, type ScreenHand } from './input.js';
import { NavigationArrows } from './history.js';
import { FOCUS_MOVING_KEYS, focusIsEditable, selectedText } from './focus.js';
import { HostSound, type Listener } from './sound.js';

/** Smallest page layout a surface may ask for, CSS px: a narrow phone in portrait fits above it. */
export const LAYOUT_MIN_WIDTH = 320;
export const LAYOUT_MIN_HEIGHT = 240;
/** Largest surface side a viewer may report, CSS px: past any real screen, so a nonsense size is bounded. */
export const SURFACE_MAX_PX = 16_384;

/** A person's token for the whole org: every subscriber with one sees the same tab list. */
function isWholeOrg(g: ViewerGrant): boolean {
  return g.kind === 'person' && g.seats === null && g.tab === undefined;
}

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

/** How often the tab list's sound marks are asked of a looked-at host, ms: one small CDP call each; Chromium itself marks a tab audible for ~2 s after its sound. */
export const AUDIBLE_POLL_MS = 1_000;

/** `w`×`h`: the page layout this viewer asks for; `box`: its surface as it measures it, the space its points come in. */
interface Watch { profile: ProfileBrowser; tab: Tab; pageId: string; w: number; h: number; box: Size; since: number }
interface Size { w: number; h: number }
/** `surface`: the viewer's box as it last measured it (CSS px, unclamped); `inputs`: its input events, one after another. */
/** A move or wheel waiting in a viewer's queue, not started: a newer one of the same kind takes its place. */
interface PendingGesture { kind: 'move' | 'wheel'; m: InputMessage; started: boolean; buttons: unknown; modifiers: unknown; done: Promise<void> }
/** `subscribed`: the profile whose tab list this viewer follows; `also`: the org's other profiles it follows too (`every`). */
interface ViewerState { info: ViewerInfo; subscribed?: string; also?: ReadonlySet<string>; watch?: Watch; surface: Size; focusAsks?: number; inputs?: Promise<void>; pending?: PendingGesture; queued?: number }
type InputMessage = Extract<ClientMessage, { t: 'input' }>;

/** Gestures that may wait for a slow page per viewer: past it the page is far behind the person, and more would only grow the server. */
export const INPUT_BACKLOG_MAX = 256;

/**
 * How long a gesture may wait for the page's acknowledgement, ms. The browser answers a dispatched
 * wheel or press once the renderer has handled it, and never when the renderer is replaced under
 * it (a navigation swaps the page while a wheel is in flight): without a bound, one such gesture
 * held every later one of the person's forever. Past it the queue moves on; the gesture went to
 * the page that was there, or went with it.
 */
export const INPUT_ACK_DEADLINE_MS = 2_000;

/** Resolves when `p` does, or after INPUT_ACK_DEADLINE_MS (calling `late`): a lost acknowledgement never holds the queue. */
function acked(p: Promise<void>, late: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => { timer = setTimeout(() => { late(); resolve(); }, INPUT_ACK_DEADLINE_MS); });
  return Promise.race([p.finally(() => clearTimeout(timer)), deadline]);
}

/** Two wheels as one: the later one's point, both distances. */
function addWheel(a: unknown, b: unknown): InputMessage['ev'] {
  const x = a as { dx?: unknown; dy?: unknown };
  const y = b as { dx?: unknown; dy?: unknown };
  const num = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
  return { ...(b as object), dx: num(x.dx) + num(y.dx), dy: num(x.dy) + num(y.dy) } as InputMessage['ev'];
}
interface HostFrames { pipeline: FramePipeline; source: number }

export class BrowserViewing {
  private viewers = new Map<number, ViewerState>();
  /** Controller viewer per tab, by page id. */
  private controllers = new Map<string, number>();
  /** The layout each captured tab has now, by page id, and the window (CDP target) it was captured from: a rebuilt page has a new one. */
  private layouts = new Map<string, { w: number; h: number; targetId: string; viewport: Rect }>();
  private frames = new Map<BrowserHost, Promise<HostFrames>>();
  /** The pipelines started and not stopped, by host: what /metrics reads. */
  private readonly running = new Map<BrowserHost, FramePipeline>();
  private nextSource = 1;
  /** Gestures whose acknowledgement the page never sent within INPUT_ACK_DEADLINE_MS: /metrics shows them. */
  unackedInputs = 0;
  /** Frame ids are unique across hosts, so one relay can serve every host's tabs. */
  private frameIds = new WeakMap<Tab, number>();
  private nextFrameId = 1;
  /** Each host's sound capture, made when one of its tabs first has a controller. */
  private sounds = new Map<BrowserHost, HostSound>();
  /** The target ids of each profile's tabs that play sound, as last asked. */
  private audible = new Map<string, Set<string>>();
  private audiblePoll?: NodeJS.Timeout;
  private audiblePolling = false;
  readonly arrows: NavigationArrows;
  /** The agents' recordings, by page id: while one runs, the tab is laid out at the file's size whoever views it. */
  private takes = new Map<string, ViewRecording>();
  /** Called after every view push: the role or the watchers of the tab may have moved. */
  readonly viewPushed: Array<(p: ProfileBrowser, tab: Tab) => void> = [];

  constructor(private readonly hub: ViewerHub, private readonly dir: BrowserDirectory) {
    this.arrows = new NavigationArrows((tab, msg) => this.sendToWatchers(tab, msg));
  }

  attach(): void {
    const hub = this.hub;
    this.audiblePoll = setInterval(() => {
      if (this.audiblePolling) return;
      this.audiblePolling = true;
      void this.pollAudible().catch(() => undefined).finally(() => { this.audiblePolling = false; });
    }, AUDIBLE_POLL_MS);
    this.audiblePoll.unref();
    hub.onOpen((info) => this.viewers.set(info.id, { info, surface: { w: DEFAULT_PAGE_WIDTH, h: DEFAULT_PAGE_HEIGHT } }));
    hub.onClose((info) => { void this.detach(info.id).catch(() => undefined); this.viewers.delete(info.id); });
    hub.on('tabs', (v, m) => this.subscribe(v, m as Extract<ClientMessage, { t: 'tabs' }>));
    hub.on('attach', (v, m) => this.attachTab(v, m as Extract<ClientMessage, { t: 'attach' }>));
    hub.on('detach', async (v) => { await this.detach(v.id); });
    hub.on('resize', (v, m) => this.resize(v, m as Extract<ClientMessage, { t: 'resize' }>));
    hub.on('control', (v, m) => this.control(v, m as Extract<ClientMessage, { t: 'control' }>));
    hub.on('nav', (v, m) => this.nav(v, m as Extract<ClientMessage, { t: 'nav' }>));
    hub.on('input', (v, m) => this.queueInput(v, m as InputMessage));
  }

  /**
   * A gesture joins its viewer's queue; a move (or a wheel) that finds the move (or wheel) before
   * it still waiting takes its place instead (a wheel adds its distance), so a page slower than
   * the person's hand never builds a backlog of stale positions: newest position only, as frames
   * are newest frame only. Presses, keys and text always queue, in order; past
   * INPUT_BACKLOG_MAX waiting the gesture is refused in words.
   */
  private queueInput(v: ViewerInfo, m: InputMessage): Promise<void> {
    const s = this.state(v);
    const ev = (typeof m.ev === 'object' && m.ev !== null ? m.ev : {}) as { type?: unknown; action?: unknown; buttons?: unknown; modifiers?: unknown };
    const kind = ev.type === 'mouse' && ev.action === 'move' ? 'move' : ev.type === 'wheel' ? 'wheel' : undefined;
    const p = s.pending;
    if (kind && p && !p.started && p.kind === kind && p.buttons === ev.buttons && p.modifiers === ev.modifiers) {
      p.m = kind === 'wheel' ? { ...m, ev: addWheel(p.m.ev, m.ev) } : m;
      return p.done;
    }
    if ((s.queued ?? 0) >= INPUT_BACKLOG_MAX) {
      return Promise.reject(new ForgeError('input_backlog', `the page is ${s.queued} gestures behind your input; this one was dropped (wait for the page to catch up)`));
    }
    const entry: PendingGesture | undefined = kind ? { kind, m, started: false, buttons: ev.buttons, modifiers: ev.modifiers, done: Promise.resolve() } : undefined;
    s.pending = entry;
    s.queued = (s.queued ?? 0) + 1;
    const done = this.inOrder(v, () => {
      s.queued = (s.queued ?? 1) - 1;
      if (entry) { entry.started = true; if (s.pending === entry) s.pending = undefined; }
      return this.input(v, entry ? entry.m : m);
    });
    if (entry) entry.done = done;
    return done;
  }

  /**
   * Runs a viewer's input events in the order they came: one event may take a step more than
   * another (a press starts drag interception first), and a move must never pass its press.
   */
  private inOrder(v: ViewerInfo, fn: () => Promise<void>): Promise<void> {
    const s = this.state(v);
    const run = (s.inputs ?? Promise.resolve()).then(fn);
    s.inputs = run.catch(() => undefined);
    return run;
  }

  private state(v: ViewerInfo): ViewerState {
    let s = this.viewers.get(v.id);
    if (!s) { s = { info: v, surface: { w: DEFAULT_PAGE_WIDTH, h: DEFAULT_PAGE_HEIGHT } }; this.viewers.set(v.id, s); }
    return s;
  }

  private profileFor(v: ViewerInfo, seat: unknown): ProfileBrowser {
    if (seat !== undefined && typeof seat !== 'string') throw new ForgeError('bad_request', 'seat must be ORG/PROJECT/LABEL');
    const s = seat ?? v.query.get('seat') ?? undefined;
    if (s) {
      const parsed = parseSeat(s);
      if (parsed.org !== v.org) throw new ForgeError('auth', `this viewer's token is for org ${v.org}, not ${parsed.org}`);
    }
    return this.dir.profile(this.dir.profileKeyFor(s));
  }

  // ---- the tab list ----

  private subscribe(v: ViewerInfo, m: Extract<ClientMessage, { t: 'tabs' }>): void {
    if (v.handoff) throw new ForgeError('auth', 'a hand-off link shows its own page only; it has no tab list');
    if (m.every !== undefined && typeof m.every !== 'boolean') throw new ForgeError('bad_request', 'every must be true or false');
    const p = this.profileFor(v, m.seat);
    const s = this.state(v);
    s.subscribed = p.key;
    const also = m.every ? this.dir.orgProfileKeys().filter((k) => k !== p.key) : [];
    s.also = also.length ? new Set(also) : undefined;
    this.hub.send(v.id, this.tabList(p, v.grant));
    for (const k of also) this.hub.send(v.id, { ...this.tabList(this.dir.profile(k), v.grant), also: true });
  }

  /** Follows the profile's tab list: as its own (`also` false) or as one of the org's others. */
  private follows(s: ViewerState, p: ProfileBrowser): 'own' | 'also' | undefined {
    return s.subscribed === p.key ? 'own' : s.also?.has(p.key) ? 'also' : undefined;
  }

  /** The tabs a grant covers: every owned tab for an org-wide token, those of its seats or its one tab for a limited one. */
  private visible(p: ProfileBrowser, grant: ViewerGrant): Tab[] {
    return p.host?.alive ? p.tabs.all().filter((t) => t.owner && tabAllowed(grant, t.pageId, t.owner)) : [];
  }

  tabList(p: ProfileBrowser, grant: ViewerGrant): Extract<ServerMessage, { t: 'tabs' }> {
    // The host's unowned blank boot tab is nobody's page: a profile with only that has no tab to show.
    const audible = this.audible.get(p.key);
    const tabs = this.visible(p, grant).map((t) => ({ ...p.tabs.row(t, p.seatInUse), ...(audible?.has(t.targetId) ? { audible: true } : {}) }));
    const held = tabs.some((t) => t.state === 'held');
    const closing = p.host?.alive && p.viewers === 0 && !held
      ? { closingInMinutes: Math.max(0, Math.ceil(this.dir.idleMinutes - (Date.now() - p.lastActivity) / 60_000)) } : {};
    return { t: 'tabs', profile: p.key, host: p.hostState, ...closing, tabs };
  }

  /** A profile's tabs changed: its subscribers get the list, viewers of a closed tab are told. */
  profileChanged(p: ProfileBrowser): void {
    for (const how of ['own', 'also'] as const) {
      const subs = [...this.viewers.values()].filter((s) => this.follows(s, p) === how);
      const mark = how === 'also' ? { also: true as const } : {};
      const whole = subs.filter((s) => isWholeOrg(s.info.grant));
      if (whole.length) this.hub.send(whole.map((s) => s.info.id), { ...this.tabList(p, whole[0]!.info.grant), ...mark });
      for (const s of subs) if (!isWholeOrg(s.info.grant)) this.hub.send(s.info.id, { ...this.tabList(p, s.info.grant), ...mark });
    }
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
      const layout = this.layouts.get(w.tab.pageId);
      if (layout && layout.targetId !== w.tab.targetId) rebuilt.add(w.tab);
    }
    // A crashed page rebuilt in a fresh window: its viewers follow the new window and its history.
    for (const tab of rebuilt) {
      void this.relayout(tab).then(() => { this.pushView(tab); return this.arrows.refresh(tab, p); }).catch(() => undefined);
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
      const wasController = this.controllers.get(from.pageId) === s.info.id;
      void this.attachTab(s.info, { t: 'attach', pageId: to.pageId, w: s.surface.w, h: s.surface.h })
        .then(() => { if (wasController) return this.control(s.info, { t: 'control', take: true }); })
        .catch((e: Error) => this.hub.send(s.info.id, { t: 'error', for: 'attach', message: e.message }));
    }
  }

  hostEnded(p: ProfileBrowser, sentence: string): void {
    for (const s of this.viewers.values()) if (s.watch?.profile === p) void this.lose(s, sentence);
    for (const [host, frames] of this.frames) {
      if (host.profileKey !== p.key || host.alive) continue;
      this.frames.delete(host);
      void frames.then((f) => this.stopFrames(f)).catch(() => undefined);
    }
  }

  private async lose(s: ViewerState, message: string): Promise<void> {
    const w = s.watch;
    if (!w) return;
    this.hub.send(s.info.id, { t: 'gone', tab: w.tab.number, message });
    await this.detach(s.info.id);
  }

  // ---- attach, detach, layout ----

  private async attachTab(v: ViewerInfo, m: Extract<ClientMessage, { t: 'attach' }>): Promise<void> {
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
    if (!v.handoff) s.subscribed ??= p.key;
    if (!p.host?.alive) this.dir.wanted?.(p, 'a person showed the browser');
    // What this viewer may watch: the link's page, or the tabs its token covers.
    const mayWatch = (t: Tab | undefined): t is Tab => !!t?.owner && (v.handoff !== undefined || tabAllowed(v.grant, t.pageId, t.owner));
    if (m.pageId !== undefined && !(p.host?.alive && mayWatch(p.tabs.get(String(m.pageId))))) throw this.missingPage(p, String(m.pageId), v.grant);
    if (!p.host?.alive || !p.tabs.all().some((t) => mayWatch(t))) throw new ForgeError('tab_not_open', 'the profile has no tab to show yet');
    let tab: Tab | undefined;
    if (m.pageId !== undefined) {
      tab = p.tabs.get(String(m.pageId))!;
    } else if (m.tab !== undefined) {
      tab = p.tabs.byNumber(Number(m.tab));
      if (!mayWatch(tab)) throw new ForgeError('tab_not_open', `tab ${String(m.tab).slice(0, 20)} is not open`);
    } else {
      tab = p.tabs.all().find((t) => mayWatch(t))!;
    }
    if (s.watch?.tab === tab) { await this.relayout(tab); this.pushView(tab); return; }
    await this.detach(v.id);
    const host = p.host;
    s.watch = { profile: p, tab, pageId: tab.pageId, ...layoutSize(s.surface), box: s.surface, since: Date.now() };
    p.viewers++;
    p.lastActivity = Date.now();
    await this.dir.tabShown?.(p, tab);
    const frames = await this.framesFor(host);
    if (s.watch?.tab !== tab) return; // re-attached meanwhile
    await this.relayout(tab);
    this.hub.post({ t: 'watch', viewer: v.id, source: frames.source, tab: this.frameId(tab) });
    this.pushView(tab);
    await this.arrows.refresh(tab, p);
  }

  /** The refusal for a page id no open tab carries: in a hand-off's own words when a parked ask names it, with the tabs open now. */
  private missingPage(p: ProfileBrowser, pageId: string, grant: ViewerGrant): ForgeError {
    pageId = pageId.slice(0, 80);
    const open = this.visible(p, grant).map((t) => `tab ${t.number} (${t.pageId})`).join(', ') || 'none';
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
    this.hub.post({ t: 'watch', viewer, source: 0, tab: null });
    if (this.controllers.get(w.tab.pageId) === viewer) this.controllers.delete(w.tab.pageId);
    this.soundFollows(w.profile);
    if (this.watchersOf(w.tab).length === 0) {
      this.dir.tabHidden?.(w.profile, w.tab);
      this.layouts.delete(w.tab.pageId);
      this.arrows.forget(w.tab);
      const frames = w.profile.host ? this.frames.get(w.profile.host) : undefined;
      if (frames) void frames.then((f) => f.pipeline.uncapture(w.tab.targetId)).catch(() => undefined);
      return;
    }
    await this.relayout(w.tab).catch(() => undefined);
    this.pushView(w.tab);
  }

  private async resize(v: ViewerInfo, m: Extract<ClientMessage, { t: 'resize' }>): Promise<void> {
    const s = this.state(v);
    s.surface = surfaceSize(m.w, m.h);
    if (!s.watch) return;
    Object.assign(s.watch, layoutSize(s.surface), { box: s.surface });
    await this.relayout(s.watch.tab);
    this.pushView(s.watch.tab);
  }

  /** The page is laid out at the controller's surface, else at the longest-watching viewer's. */
  private layoutOwner(tab: Tab): ViewerState | undefined {
    const c = this.controllers.get(tab.pageId);
    const watchers = this.watchersOf(tab);
    return watchers.find((s) => s.info.id === c) ?? watchers.sort((a, b) => a.watch!.since - b.watch!.since || a.info.id - b.info.id)[0];
  }

  /**
   * An agent's recording of the tab starts (or, with null, ends): its viewers are told, and the
   * page is laid out at the file's size meanwhile, then at theirs again. Answers whether anyone
   * views the tab (when nobody does, its layout is the recorder's to set).
   */
  async recording(tab: Tab, take: ViewRecording | null): Promise<boolean> {
    if (take) this.takes.set(tab.pageId, take); else this.takes.delete(tab.pageId);
    if (!this.watchersOf(tab).length) return false;
    await this.relayout(tab);
    this.pushView(tab);
    return true;
  }

  private async relayout(tab: Tab): Promise<void> {
    const owner = this.layoutOwner(tab);
    if (!owner?.watch) return;
    const take = this.takes.get(tab.pageId);
    const want = take ? { w: take.width, h: take.height } : { w: owner.watch.w, h: owner.watch.h };
    const now = this.layouts.get(tab.pageId);
    if (now && now.w === want.w && now.h === want.h && now.targetId === tab.targetId) return;
    const host = owner.watch.profile.host;
    if (!host) return;
    const frames = await this.framesFor(host);
    const viewport = await frames.pipeline.capture(tab.targetId, this.frameId(tab), want.w, want.h);
    this.layouts.set(tab.pageId, { ...want, targetId: tab.targetId, viewport });
  }

  // ---- the role ----

  /** The host's sound capture (made on first use, ended with the host), while the host has an audio sink. */
  private soundOf(p: ProfileBrowser): HostSound | undefined {
    const host = p.host;
    if (!host?.alive || !host.audio || !p.driver) return undefined;
    let sound = this.sounds.get(host);
    if (!sound) {
      const made = new HostSound(host.wsEndpoint, p.driver.context, (viewer, data) => this.hub.post({ t: 'send_audio', viewer, data }, [data.buffer as ArrayBuffer]));
      this.sounds.set(host, made);
      host.onExit(() => { made.close(); this.sounds.delete(host); this.audible.delete(p.key); });
      sound = made;
    }
    return sound;
  }

  /**
   * Which tabs play sound (muted or not), asked of each subscribed profile's host: a change
   * pushes the tab list, whose rows say it. Only profiles someone looks at are asked.
   */
  private async pollAudible(): Promise<void> {
    const keys = new Set([...this.viewers.values()].flatMap((s) => [...(s.subscribed ? [s.subscribed] : []), ...(s.also ?? [])]));
    for (const key of keys) {
      const p = this.dir.profile(key);
      const sound = this.soundOf(p);
      if (!sound) continue;
      const now = new Set(await sound.audible().catch(() => [] as string[]));
      const was = this.audible.get(key) ?? new Set<string>();
      if (now.size === was.size && [...now].every((id) => was.has(id))) continue;
      this.audible.set(key, now);
      this.profileChanged(p);
    }
  }

  private async control(v: ViewerInfo, m: Extract<ClientMessage, { t: 'control' }>): Promise<void> {
    const w = this.state(v).watch;
    if (!w) throw new ForgeError('bad_request', 'attach to a tab before taking control');
    const held = this.controllers.get(w.tab.pageId) === v.id;
    if (m.take) this.controllers.set(w.tab.pageId, v.id);
    else if (held) this.controllers.delete(w.tab.pageId);
    if (m.take !== held && w.tab.owner) this.hub.acted(v, w.tab.owner, m.take ? 'took control' : 'released control', `tab ${w.tab.number}${w.tab.title ? ` "${w.tab.title}"` : ''}`);
    await this.relayout(w.tab);
    this.pushView(w.tab);
  }

  /**
   * The host's sound follows the role: each controller hears the tab it controls, to that
   * controller only; a tab nobody controls is not captured.
   */
  private soundFollows(p: ProfileBrowser): void {
    const host = p.host;
    if (!host?.alive || !host.audio || !p.driver) return;
    const heard: Listener[] = [];
    for (const s of this.viewers.values()) {
      const w = s.watch;
      if (w?.profile !== p || this.controllers.get(w.tab.pageId) !== s.info.id) continue;
      heard.push({ targetId: w.tab.targetId, frame: this.frameId(w.tab), viewer: s.info.id });
    }
    if (heard.length === 0 && !this.sounds.has(host)) return;
    const sound = this.soundOf(p);
    sound?.listen(heard).catch((e: Error) => log.warn({ profile: p.key, err: e.message }, 'the tab\'s sound could not be switched'));
  }

  private controllerWatch(v: ViewerInfo, what: string): Watch {
    const w = this.state(v).watch;
    if (!w) throw new ForgeError('not_controller', `attach to a tab and take control before ${what}`);
    if (this.controllers.get(w.tab.pageId) !== v.id) throw new ForgeError('not_controller', `you are watching tab ${w.tab.number}; take control before ${what}`);
    return w;
  }

  private async input(v: ViewerInfo, m: InputMessage): Promise<void> {
    const ev = checkInput(m.ev);
    const w = this.controllerWatch(v, 'driving the page');
    if (w.tab.dialog) throw new ForgeError('dialog_waiting', `tab ${w.tab.number} is held by a ${w.tab.dialog.kind} dialog: ${JSON.stringify(w.tab.dialog.message)}`);
    const session = w.profile.driver?.session(w.tab.page);
    if (!session) throw new ForgeError('host_not_answering', 'the host is not answering');
    const layout = this.layouts.get(w.tab.pageId) ?? { w: w.w, h: w.h };
    // Points come in the controller's box; the page is laid out at (at most) the capture's size.
    w.profile.lastActivity = Date.now();
    // A copy or cut chord: the selection it takes is read first (a cut removes it), and goes to the person's clipboard.
    const copying = ev.type === 'key' && ev.action === 'down' && (ev.modifiers ?? 0) & (MOD_CTRL | MOD_META) && /^[cx]$/i.test(ev.key)
      ? selectedText(w.tab.page) : undefined;
    if (copying) await copying;
    await acked(dispatchInput(session, ev, { sx: layout.w / w.box.w, sy: layout.h / w.box.h, maxX: layout.w, maxY: layout.h }, await this.screenHand(w)), () => { this.unackedInputs++; });
    const copied = copying ? await copying : '';
    if (copied) this.hub.send(v.id, { t: 'copied', tab: w.tab.number, text: copied });
    const focusMayMove = (ev.type === 'mouse' && ev.action === 'up') || (ev.type === 'key' && ev.action === 'up' && FOCUS_MOVING_KEYS.has(ev.key));
    if (focusMayMove) this.tellFocus(this.state(v), w);
  }

  /** The host's own mouse over this tab's window, while a popup window (a select's list) is open over it; else none. */
  private async screenHand(w: Watch): Promise<ScreenHand | undefined> {
    const layout = this.layouts.get(w.tab.pageId);
    const frames = w.profile.host ? await this.frames.get(w.profile.host)?.catch(() => undefined) : undefined;
    if (!layout || !frames || !frames.pipeline.popups.some((r) => overlaps(r, layout.viewport))) return undefined;
    const v = layout.viewport;
    return { mouse: (action, x, y, button) => frames.pipeline.screenMouse(action, v.x + x, v.y + y, button) };
  }

  /** Tells the controller whether the page's focus now takes typing (a phone raises its keyboard on it); only the newest answer counts. */
  private tellFocus(s: ViewerState, w: Watch): void {
    s.focusAsks = (s.focusAsks ?? 0) + 1;
    const ask = s.focusAsks;
    void focusIsEditable(w.tab.page).then((editable) => {
      if (s.focusAsks !== ask || s.watch?.tab !== w.tab || this.controllers.get(w.tab.pageId) !== s.info.id) return;
      this.hub.send(s.info.id, { t: 'focus', tab: w.tab.number, editable });
    });
  }

  private async nav(v: ViewerInfo, m: Extract<ClientMessage, { t: 'nav' }>): Promise<void> {
    if (m.dir !== 'back' && m.dir !== 'forward') throw new ForgeError('bad_request', 'nav dir must be back or forward');
    const w = this.controllerWatch(v, 'moving through the page\'s history');
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

  controllerOf(tab: Tab): number | null {
    return this.controllers.get(tab.pageId) ?? null;
  }

  /** Every viewer of the profile: subscribed to its tab list or watching one of its tabs. */
  viewersOfProfile(p: ProfileBrowser): number[] {
    return [...this.viewers.values()].filter((s) => s.subscribed === p.key || s.watch?.profile === p).map((s) => s.info.id);
  }

  /** Who holds the role, pushed to every viewer of the tab, each with its own id. */
  pushView(tab: Tab): void {
    const layout = this.layouts.get(tab.pageId) ?? { w: DEFAULT_PAGE_WIDTH, h: DEFAULT_PAGE_HEIGHT };
    const controller = this.controllers.get(tab.pageId) ?? null;
    const take = this.takes.get(tab.pageId);
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
    let id = this.frameIds.get(tab);
    if (id === undefined) { id = this.nextFrameId++; this.frameIds.set(tab, id); }
    return id;
  }

  // ---- frame pipelines, one per watched host ----

  private framesFor(host: BrowserHost): Promise<HostFrames> {
    let f = this.frames.get(host);
    if (!f) {
      f = FramePipeline.start(host).then((pipeline) => {
        const source = this.nextSource++;
        const r = pipeline.relaySource();
        this.hub.post({ t: 'frame_source', source, port: r.port, webpRing: r.webpRing, webpRingSlots: r.webpRingSlots, webpSlotBytes: r.webpSlotBytes }, [r.port]);
        const entry = { profile: host.profileKey, hostPid: host.pid, source, framebuffer: pipeline.framebuffer, popups: pipeline.popupWatch, encoder: pipeline.encodeMode };
        if (pipeline.framebuffer === 'mapped') log.info(entry, 'frame pipeline started');
        else log.warn(entry, 'frame pipeline started without the mapped framebuffer: capture costs more CPU');
        if (pipeline.encodeFallback) log.warn(entry, `${pipeline.encodeFallback}: encoding costs more CPU`);
        if (pipeline.popupWatch !== 'watched') log.warn(entry, 'a select\'s list on this host takes keys only: its popup window cannot be clicked');
        pipeline.onProblem((p) => { if (p.fatal) log.error(entry, p.sentence); else log.warn(entry, p.sentence); });
        this.running.set(host, pipeline);
        return { pipeline, source };
      });
      f.catch(() => this.frames.delete(host));
      this.frames.set(host, f);
    }
    return f;
  }

  /** The id a tab's frames carry, once it was ever shown; /metrics labels its per-tab figures with it. */
  frameOf(tab: Tab): number | undefined { return this.frameIds.get(tab); }

  /** The running hosts' encoders, as /metrics shows them. */
  encoders(): Array<[profile: string, pipeline: FramePipeline]> {
    return [...this.running].map(([host, p]) => [host.profileKey, p]);
  }

  private async stopFrames(f: HostFrames): Promise<void> {
    for (const [host, p] of this.running) if (p === f.pipeline) this.running.delete(host);
    this.hub.post({ t: 'frame_source_end', source: f.source });
    await f.pipeline.stop();
  }

  async stop(): Promise<void> {
    clearInterval(this.audiblePoll);
    for (const s of this.sounds.values()) s.close();
    this.sounds.clear();
    const all = [...this.frames.values()];
    this.frames.clear();
    await Promise.allSettled(all.map((f) => f.then((x) => this.stopFrames(x))));
  }
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** The surface a viewer measured, checked: positive numbers no bigger than any screen. */
function surfaceSize(w: unknown, h: unknown): Size {
  if (typeof w !== 'number' || typeof h !== 'number' || !Number.isFinite(w) || !Number.isFinite(h)) {
    throw new ForgeError('bad_request', 'a surface size needs numbers w and h (CSS px)');
  }
  return { w: Math.min(SURFACE_MAX_PX, Math.max(1, w)), h: Math.min(SURFACE_MAX_PX, Math.max(1, h)) };
}

/**
 * The page layout for a surface: its own size when the capture can carry it, else its shape
 * scaled into the capture's limits (a wide monitor's picture is scaled up, with no bars), and
 * never under the smallest layout.
 */
export function layoutSize(box: Size): Size {
  const down = Math.min(1, CAPTURE_MAX_WIDTH / box.w, CAPTURE_MAX_HEIGHT / box.h);
  let w = box.w * down;
  let h = box.h * down;
  if (w < LAYOUT_MIN_WIDTH || h < LAYOUT_MIN_HEIGHT) {
    const up = Math.max(LAYOUT_MIN_WIDTH / w, LAYOUT_MIN_HEIGHT / h);
    w *= up;
    h *= up;
  }
  return {
    w: Math.round(Math.min(CAPTURE_MAX_WIDTH, Math.max(LAYOUT_MIN_WIDTH, w))),
    h: Math.round(Math.min(CAPTURE_MAX_HEIGHT, Math.max(LAYOUT_MIN_HEIGHT, h))),
  };
}

/** An input message's event, checked field by field: a malformed one is refused in words. */
export function checkInput(ev: unknown): InputEvent {
  const bad = (why: string): ForgeError => new ForgeError('bad_request', `the input event was refused: ${why}`);
  if (typeof ev !== 'object' || ev === null) throw bad('ev must be a map');
  const e = ev as Record<string, unknown>;
  const num = (k: string): void => { if (typeof e[k] !== 'number' || !Number.isFinite(e[k])) throw bad(`${k} must be a number`); };
  switch (e.type) {
    case 'mouse':
      if (!['down', 'up', 'move'].includes(e.action as string)) throw bad('a mouse action is down, up or move');
      num('x'); num('y');
      break;
    case 'wheel': num('x'); num('y'); num('dx'); num('dy'); break;
    case 'key':
      if (!['down', 'up'].includes(e.action as string)) throw bad('a key action is down or up');
      if (typeof e.key !== 'string' || !e.key) throw bad('key must name the key');
      break;
    case 'text': if (typeof e.text !== 'string') throw bad('text must be a string'); break;
    default: throw bad('type must be mouse, wheel, key or text');
  }
  return e as unknown as InputEvent;
}
