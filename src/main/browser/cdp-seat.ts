/**
 * `/cdp?seat=ORG/PROJECT/LABEL`: a browser-level CDP endpoint that shows the seat its own tabs
 * and nothing else, so an agent's own `chromium.connectOverCDP()` works on the shared browser.
 * Auto-attach is forge's: the client is attached to each loaded tab the seat owns (and to each it
 * gains); a target it creates is opened by forge as the seat's tab; closing is forge's close of
 * that tab. What reaches past the seat's tabs (Browser.close, other seats' targets, browser-wide
 * settings) is refused in CDP's error shape, naming why.
 */
import { CdpUpstream, type CdpMessage } from './cdp-upstream.js';
import { answerHeldDialog, answerText, parseCommand, RawCdpLink, refusal, UseMarks, type ClientCommand } from './cdp-link.js';
import type { Tab } from './tabs.js';
import { urlRefusal } from './url-policy.js';
import { CDP_QUEUE_MAX_BYTES, CDP_QUEUE_MAX_MESSAGES } from './cdp-page.js';
import { CDP_CLOSE_GOING_AWAY, CDP_CLOSE_INTERNAL, CDP_CLOSE_TOO_BIG } from '../../workers/relay/cdp-protocol.js';

/** Browser-level commands passed to the browser as they are: they read, and reach no seat's tab. */
const PASSED = new Set(['Browser.getVersion', 'Target.getBrowserContexts', 'Target.getTargetInfo', 'Target.getTargets', 'Target.attachToTarget', 'Target.detachFromTarget', 'Target.activateTarget', 'Browser.getWindowForTarget']);
/** Commands a session (a tab of the seat) may not send: they reach past the tab. */
const SESSION_REFUSED_DOMAINS = new Set(['Browser']);
const SESSION_TARGET_METHODS = new Set(['Target.setAutoAttach', 'Target.detachFromTarget', 'Target.getTargetInfo', 'Target.activateTarget']);

const uses = new UseMarks();

interface Session { targetId: string; parent?: string }

export class SeatCdpLink extends RawCdpLink {
  private ready = false;
  private queue: string[] = [];
  private queuedBytes = 0;
  /** Flat sessions the client holds: its tabs' targets and their own children (frames, workers). */
  private sessions = new Map<string, Session>();
  /** Targets being attached now, so a tab is attached once. */
  private attaching = new Map<string, Promise<void>>();
  private autoAttach = false;
  /** Target.setDiscoverTargets is on: the client hears targetCreated/Destroyed/InfoChanged for the seat's own tabs. */
  private discover = false;
  /** The seat's tabs the client was told exist (Target.targetCreated), by target id. */
  private announced = new Set<string>();
  /** Announcements being made now, so a tab is announced once. */
  private announcing = new Map<string, Promise<void>>();

  /** The seat's endpoint is a real need: the host starts for it; messages wait meanwhile. */
  start(): void {
    void (async () => {
      const { host } = await this.ctx.profile.ensure();
      if (this.ended) return;
      const up = await CdpUpstream.connect(host.wsEndpoint);
      this.upstream = up;
      if (this.ended) { void up.close(); return; }
      up.onEvent((m) => this.event(m));
      up.onClose(() => { if (!this.ended) this.end(CDP_CLOSE_GOING_AWAY, 'the browser\'s socket closed (the host ended)'); });
      this.ready = true;
      const waiting = this.queue;
      this.queue = [];
      for (const text of waiting) this.message(text);
    })().catch((e: Error) => {
      this.ctx.log.warn({ err: e }, 'raw CDP: the seat\'s endpoint could not reach the browser');
      this.end(CDP_CLOSE_INTERNAL, `the browser could not be reached: ${e.message}`);
    });
  }

  private ownTab(targetId: unknown): Tab | undefined {
    const t = typeof targetId === 'string' ? this.ctx.profile.tabs.byTarget(targetId) : undefined;
    return t && t.owner === this.ctx.seat ? t : undefined;
  }

  /** Why a target is not the seat's, by name. */
  private notYours(targetId: unknown): string {
    const t = typeof targetId === 'string' ? this.ctx.profile.tabs.byTarget(targetId) : undefined;
    const seat = this.ctx.seat;
    if (!t) return `target ${String(targetId).slice(0, 64)} is not one of ${seat}'s tabs; this endpoint shows that seat's tabs only`;
    return `target ${t.targetId} is tab ${t.number} (${t.pageId}), ${t.owner ? `which belongs to ${t.owner}` : 'the host\'s boot tab'}; this endpoint drives ${seat}'s tabs only`;
  }

  /**
   * The profile's tabs changed: with discovery on, the client hears of every loaded tab the seat
   * owns now and of each it no longer has; with auto-attach on, it is attached to each.
   */
  changed(): void {
    if (!this.ready || this.ended) return;
    const own = this.ctx.profile.tabs.ownedBy(this.ctx.seat).filter((t) => !t.unloaded);
    if (this.discover) {
      for (const tab of own) void this.announce(tab);
      const live = new Set(own.map((t) => t.targetId));
      for (const targetId of this.announced) if (!live.has(targetId)) this.unannounce(targetId);
    }
    if (this.autoAttach) for (const tab of own) void this.attachTab(tab);
  }

  /** Tells a discovering client the seat's tab exists, with the browser's own facts about its target. */
  private announce(tab: Tab): Promise<void> {
    const targetId = tab.targetId;
    if (!this.discover || this.announced.has(targetId)) return Promise.resolve();
    let a = this.announcing.get(targetId);
    if (!a) {
      a = this.upstream!.send('Target.getTargetInfo', { targetId }).then((r) => {
        if (this.ended || !this.discover || this.announced.has(targetId) || !('result' in r) || !this.ownTab(targetId)) return;
        this.announced.add(targetId);
        this.ctx.send(JSON.stringify({ method: 'Target.targetCreated', params: { targetInfo: r.result.targetInfo } }));
      }).finally(() => this.announcing.delete(targetId));
      this.announcing.set(targetId, a);
    }
    return a;
  }

  /** The client was told of a target that is no longer the seat's tab (closed, or handed back as the host's boot tab). */
  private unannounce(targetId: string): void {
    if (!this.announced.delete(targetId)) return;
    this.ctx.send(JSON.stringify({ method: 'Target.targetDestroyed', params: { targetId } }));
  }

  private attachTab(tab: Tab): Promise<void> {
    const targetId = tab.targetId;
    if ([...this.sessions.values()].some((s) => s.targetId === targetId && !s.parent)) return Promise.resolve();
    let a = this.attaching.get(targetId);
    if (!a) {
      // The browser announces the session (Target.attachedToTarget) before it answers; event() passes it on.
      a = this.upstream!.send('Target.attachToTarget', { targetId, flatten: true }).then(() => undefined).finally(() => this.attaching.delete(targetId));
      this.attaching.set(targetId, a);
    }
    return a;
  }

  message(text: string): void {
    if (this.ended) return;
    this.ctx.profile.lastActivity = Date.now();
    if (!this.ready) {
      const bytes = Buffer.byteLength(text);
      if (this.queue.length + 1 > CDP_QUEUE_MAX_MESSAGES || this.queuedBytes + bytes > CDP_QUEUE_MAX_BYTES) {
        this.end(CDP_CLOSE_TOO_BIG, `${this.queue.length + 1} messages arrived while the browser was starting; at most ${CDP_QUEUE_MAX_MESSAGES} (${CDP_QUEUE_MAX_BYTES / (1024 * 1024)} MiB) wait`);
        return;
      }
      this.queue.push(text);
      this.queuedBytes += bytes;
      return;
    }
    const c = parseCommand(this.ctx, text);
    if (!c) return;
    if (c.sessionId !== undefined) this.onSession(c);
    else void this.onBrowser(c).catch((e: Error) => this.ctx.send(refusal(c, `${c.method} failed: ${e.message}`)));
  }

  private forward(c: ClientCommand, params = c.params, then?: (result: Record<string, unknown>) => unknown): void {
    this.upstream!.relay(c.method, params, c.sessionId, (a) => {
      if (this.ended) return;
      this.ctx.send(answerText(c, 'result' in a && then ? { result: then(a.result) } : a));
    });
  }

  private onSession(c: ClientCommand): void {
    const s = this.sessions.get(c.sessionId!);
    if (!s) { this.ctx.send(refusal(c, `no session ${c.sessionId!.slice(0, 64)} on this socket; it holds the sessions of ${this.ctx.seat}'s tabs`)); return; }
    const domain = c.method.slice(0, c.method.indexOf('.'));
    if ((SESSION_REFUSED_DOMAINS.has(domain) && c.method !== 'Browser.getVersion') || (domain === 'Target' && !SESSION_TARGET_METHODS.has(c.method))) {
      this.ctx.send(refusal(c, `${c.method} is refused: the browser is shared by every seat, and this endpoint drives ${this.ctx.seat}'s tabs only`));
      return;
    }
    const root = s.parent ? this.sessions.get(s.parent) : s;
    const tab = root ? this.ownTab(root.targetId) : undefined;
    if (tab) uses.mark(this.ctx.profile, tab);
    const held = c.method === 'Page.handleJavaScriptDialog' && tab && !s.parent ? answerHeldDialog(this.ctx.profile, tab, c.params) : undefined;
    if (held) { void held.then((a) => { if (!this.ended) this.ctx.send(answerText(c, a)); }); return; }
    this.forward(c);
  }

  private async onBrowser(c: ClientCommand): Promise<void> {
    const p = this.ctx.profile;
    const seat = this.ctx.seat;
    const targetId = c.params.targetId;
    switch (c.method) {
      case 'Target.setDiscoverTargets': {
        // The browser's discovery, on this socket's own connection; its events are filtered to the seat's tabs (event()).
        const on = c.params.discover === true;
        const was = this.discover;
        // On before the browser's own announcements arrive: they come ahead of its answer, as clients expect.
        this.discover = on;
        const a = await this.upstream!.send('Target.setDiscoverTargets', { discover: on });
        if ('error' in a) { this.discover = was; this.ctx.send(answerText(c, a)); return; }
        if (on) await Promise.all(p.tabs.ownedBy(seat).filter((t) => !t.unloaded).map((t) => this.announce(t)));
        else this.announced.clear();
        this.ctx.send(answerText(c, { result: {} }));
        return;
      }
      case 'Target.setAutoAttach':
        this.autoAttach = c.params.autoAttach === true;
        if (this.autoAttach) await Promise.all(p.tabs.ownedBy(seat).filter((t) => !t.unloaded).map((t) => this.attachTab(t)));
        this.ctx.send(answerText(c, { result: {} }));
        return;
      case 'Target.createTarget': {
        if (c.params.browserContextId !== undefined) { this.ctx.send(refusal(c, 'a new browser context is not offered: the seat\'s tabs live in the profile\'s one context (browser.contexts()[0])')); return; }
        const url = typeof c.params.url === 'string' ? c.params.url : '';
        const { driver } = await p.ensure();
        const why = url ? urlRefusal(url, p.urlPolicy()) : undefined;
        if (why) { this.ctx.send(refusal(c, why)); return; }
        const tab = await p.openTab(seat, driver);
        // A client waits for its new target's targetCreated (and its attach) before it uses it.
        await this.announce(tab);
        if (this.autoAttach) await this.attachTab(tab);
        if (url && url !== 'about:blank') void tab.page.goto(url).catch(() => undefined);
        this.ctx.log.info({ event: 'cdp_target_created', pageId: tab.pageId, tab: tab.number }, 'raw CDP: the seat opened a tab');
        this.ctx.send(answerText(c, { result: { targetId: tab.targetId } }));
        return;
      }
      case 'Target.closeTarget': {
        const tab = this.ownTab(targetId);
        if (!tab) { this.ctx.send(refusal(c, this.notYours(targetId))); return; }
        await p.closeTab(tab);
        // The host's last window is blanked and handed back as its boot tab: it is no longer the seat's.
        for (const [sid, s] of this.sessions) if (s.targetId === tab.targetId && !s.parent) void this.upstream!.send('Target.detachFromTarget', { sessionId: sid });
        this.ctx.send(answerText(c, { result: { success: true } }));
        return;
      }
      case 'Target.getTargets':
        this.forward(c, c.params, (r) => ({ ...r, targetInfos: ((r.targetInfos ?? []) as Array<{ targetId: string }>).filter((t) => this.ownTab(t.targetId)) }));
        return;
      case 'Browser.setDownloadBehavior':
        // Downloads are forge's (each is handed to the tab's person or agent): a client's setting would take them from everyone.
        this.ctx.send(answerText(c, { result: {} }));
        return;
      case 'Browser.close':
        this.ctx.send(refusal(c, `Browser.close is refused: the browser is shared by every seat; close ${seat}'s own tabs with Target.closeTarget (page.close()), or disconnect`));
        return;
    }
    if (!PASSED.has(c.method)) {
      this.ctx.send(refusal(c, `${c.method} is refused: it acts on the whole shared browser, and this endpoint drives ${seat}'s tabs only`));
      return;
    }
    if (targetId !== undefined && !this.ownTab(targetId)) { this.ctx.send(refusal(c, this.notYours(targetId))); return; }
    if (c.method === 'Target.detachFromTarget' && !this.sessions.has(String(c.params.sessionId))) { this.ctx.send(refusal(c, 'no such session on this socket')); return; }
    this.forward(c);
  }

  private event(m: CdpMessage): void {
    if (this.ended) return;
    const params = m.params ?? {};
    if (m.sessionId !== undefined) {
      if (!this.sessions.has(m.sessionId)) return;
      if (m.method === 'Target.attachedToTarget') this.sessions.set(String(params.sessionId), { targetId: String((params.targetInfo as { targetId: string }).targetId), parent: m.sessionId });
      if (m.method === 'Target.detachedFromTarget') this.sessions.delete(String(params.sessionId));
      this.ctx.send(JSON.stringify(m));
      return;
    }
    switch (m.method) {
      case 'Target.attachedToTarget': {
        const info = params.targetInfo as { targetId: string };
        const sid = String(params.sessionId);
        if (!this.ownTab(info.targetId)) { void this.upstream?.send('Target.detachFromTarget', { sessionId: sid }); return; }
        this.sessions.set(sid, { targetId: info.targetId });
        this.ctx.send(JSON.stringify(m));
        return;
      }
      case 'Target.detachedFromTarget': {
        const sid = String(params.sessionId);
        if (!this.sessions.delete(sid)) return;
        for (const [child, s] of this.sessions) if (s.parent === sid) this.sessions.delete(child);
        this.ctx.send(JSON.stringify(m));
        return;
      }
      case 'Target.targetCreated': {
        // Discovery's own announcement: passed for a tab the seat owns now; a tab it gains later is announced by changed().
        const t = (params.targetInfo as { targetId: string }).targetId;
        if (!this.discover || this.announced.has(t) || !this.ownTab(t)) return;
        this.announced.add(t);
        this.ctx.send(JSON.stringify(m));
        return;
      }
      case 'Target.targetDestroyed': {
        const t = String(params.targetId);
        const held = [...this.sessions.values()].some((s) => s.targetId === t);
        // With discovery on, what the client was told of decides; else the sessions it holds do.
        if (this.announced.delete(t) || (held && !this.discover)) this.ctx.send(JSON.stringify(m));
        return;
      }
      case 'Target.targetCrashed':
      case 'Target.targetInfoChanged': {
        const t = (params.targetInfo as { targetId?: string } | undefined)?.targetId ?? params.targetId;
        if ((typeof t === 'string' && this.announced.has(t)) || [...this.sessions.values()].some((s) => s.targetId === t)) this.ctx.send(JSON.stringify(m));
        return;
      }
    }
  }
}
