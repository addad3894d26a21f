/**
 * `/cdp/<page id>`: a CDP socket to one tab's target, as Chromium's own page socket would be,
 * through a flat session on forge's own loopback connection. The tab keeps its page id when the
 * memory budget unloads it or a crash rebuilds it; the socket outlives both: messages that arrive
 * while the tab has no page are queued (bounded), the tab is rebuilt, and they are sent in order.
 */
import { aDialog, type Tab } from './tabs.js';
import { CdpUpstream, type CdpAnswer, type CdpMessage } from './cdp-upstream.js';
import { answerHeldDialog, answerText, parseCommand, RawCdpLink, refusal, UseMarks, type ClientCommand, type LinkContext } from './cdp-link.js';
import { CDP_CLOSE_GOING_AWAY, CDP_CLOSE_INTERNAL, CDP_CLOSE_NO_TAB, CDP_CLOSE_TOO_BIG } from '../../workers/relay/cdp-protocol.js';

/**
 * Messages held while the tab is unloaded or being rebuilt: a client that sends far more before
 * its first answer is not waiting for the page, and the rebuild takes a second or two.
 */
export const CDP_QUEUE_MAX_MESSAGES = 64;
/** Bytes held while the tab is being rebuilt: a few scripts or a page's worth of HTML, not a file. */
export const CDP_QUEUE_MAX_BYTES = 4 * 1024 * 1024;
/** Attach attempts when the tab's target goes between the rebuild and the attach (unloaded again at once). */
const ATTACH_ATTEMPTS = 3;

/** Browser-wide commands a page socket may not send: they reach past its own tab. */
const PAGE_TARGET_METHODS = new Set(['Target.setAutoAttach', 'Target.detachFromTarget', 'Target.getTargetInfo', 'Target.activateTarget']);

const uses = new UseMarks();

export class PageCdpLink extends RawCdpLink {
  /** The flat session on the tab's current target; undefined while the tab has no page attached. */
  private sessionId?: string;
  private targetId?: string;
  private attaching?: Promise<void>;
  private queue: string[] = [];
  private queuedBytes = 0;
  /** Sessions the client's own auto-attach opened under its page (frames, workers). */
  private children = new Set<string>();
  /** Commands sent and not yet answered: answered with the rebuild's words when the page goes under them. */
  private inflight = new Set<ClientCommand>();
  /** Domains the client enabled: enabled again on a rebuilt page, so its events keep coming. */
  private enabled = new Map<string, Record<string, unknown>>();

  constructor(ctx: LinkContext, private readonly tab: Tab) { super(ctx); }

  start(): void { void this.attach(); }

  private get name(): string { return `tab ${this.tab.number} (${this.tab.pageId})`; }
  private tabGone(): boolean { return this.ctx.profile.tabs.get(this.tab.pageId) !== this.tab; }

  /** The profile's tabs changed: a tab that closed ends its socket. */
  changed(): void {
    if (!this.ended && this.tabGone()) this.end(CDP_CLOSE_NO_TAB, `${this.name} was closed; ${this.ctx.profile.tabs.describeFor(this.ctx.seat)}`);
  }

  message(text: string): void {
    if (this.ended) return;
    if (this.tabGone()) { this.changed(); return; }
    uses.mark(this.ctx.profile, this.tab);
    if (this.sessionId === undefined) { this.hold(text); return; }
    const c = parseCommand(this.ctx, text);
    if (c) this.handle(c);
  }

  private hold(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.queue.length + 1 > CDP_QUEUE_MAX_MESSAGES || this.queuedBytes + bytes > CDP_QUEUE_MAX_BYTES) {
      this.end(CDP_CLOSE_TOO_BIG, `${this.queue.length + 1} messages arrived while ${this.name} was reloading; at most ${CDP_QUEUE_MAX_MESSAGES} (${CDP_QUEUE_MAX_BYTES / (1024 * 1024)} MiB) wait`);
      return;
    }
    this.queue.push(text);
    this.queuedBytes += bytes;
    void this.attach();
  }

  /** Rebuilds the tab when it has no page, attaches a session to its target, then sends what waited, in order. */
  private attach(): Promise<void> {
    if (!this.attaching) {
      this.attaching = this.attachOnce()
        .catch((e: Error) => {
          this.ctx.log.warn({ err: e, pageId: this.tab.pageId }, 'raw CDP attach failed');
          this.end(CDP_CLOSE_INTERNAL, `${this.name} could not be attached: ${e.message}`);
        })
        .finally(() => { this.attaching = undefined; });
    }
    return this.attaching;
  }

  private async attachOnce(): Promise<void> {
    const p = this.ctx.profile;
    for (let attempt = 0; attempt < ATTACH_ATTEMPTS && !this.ended; attempt++) {
      const rebuilding = p.reviveInFlight(this.tab) ?? (this.tab.unloaded ? p.revive(this.tab) : undefined);
      if (rebuilding) {
        const notice = await rebuilding;
        if (this.tab.notices.indexOf(notice) < 0) this.tab.notices.push(notice);
      }
      if (this.ended) return;
      if (this.tabGone()) { this.changed(); return; }
      const host = p.host;
      if (!host?.alive) { this.end(CDP_CLOSE_GOING_AWAY, `the browser host is gone; ${this.name} went with it`); return; }
      if (!this.upstream || this.upstream.isClosed) {
        const up = await CdpUpstream.connect(host.wsEndpoint);
        this.upstream = up;
        up.onEvent((m) => this.event(m));
        up.onClose(() => { if (!this.ended) this.end(CDP_CLOSE_GOING_AWAY, 'the browser\'s socket closed (the host ended)'); });
        if (this.ended) { void up.close(); return; }
      }
      const targetId = this.tab.targetId;
      const a = await this.upstream.send('Target.attachToTarget', { targetId, flatten: true });
      if (this.ended) return;
      if ('error' in a) continue; // the target went meanwhile (unloaded again): rebuild and try again
      const sessionId = a.result.sessionId as string;
      const again = this.targetId !== undefined;
      this.sessionId = sessionId;
      this.targetId = targetId;
      // A rebuilt page starts with nothing enabled: the client's domains are enabled again, their answers its own business.
      if (again) for (const [method, params] of this.enabled) void this.upstream.send(method, params, sessionId);
      const waiting = this.queue;
      this.queue = [];
      this.queuedBytes = 0;
      for (const text of waiting) {
        if (this.ended || this.sessionId !== sessionId) { this.queue.push(text); continue; }
        const c = parseCommand(this.ctx, text);
        if (c) this.handle(c);
      }
      return;
    }
    if (!this.ended) throw new Error(`its page kept going before a session could attach (${ATTACH_ATTEMPTS} tries)`);
  }

  /** What a page socket may not send, in words; undefined when it may. */
  private refused(c: ClientCommand): string | undefined {
    const domain = c.method.slice(0, c.method.indexOf('.'));
    if (domain === 'Browser' && c.method !== 'Browser.getVersion') return `${c.method} is refused: the browser is shared by every seat, and this socket drives ${this.name} only`;
    if (domain === 'Target') {
      if (!PAGE_TARGET_METHODS.has(c.method)) return `${c.method} is refused on a page socket: it drives ${this.name} only; open tabs with browser_tabs or the seat's endpoint /cdp?seat=`;
      const t = c.params.targetId;
      if (t !== undefined && t !== this.targetId) return `${c.method} names target ${String(t).slice(0, 64)}, which is not ${this.name}; this socket drives its own tab only`;
    }
    const d = this.tab.dialog;
    if (d && c.method !== 'Page.handleJavaScriptDialog') {
      return `${this.name} is held by ${aDialog(d.kind)} dialog: ${JSON.stringify(d.message)}; answer it with Page.handleJavaScriptDialog or browser_handle_dialog, then send ${c.method} again`;
    }
    return undefined;
  }

  private handle(c: ClientCommand): void {
    if (c.sessionId !== undefined && !this.children.has(c.sessionId)) {
      this.ctx.send(refusal(c, `no session ${c.sessionId.slice(0, 64)} on this socket: its sessions are the ones its own Target.setAutoAttach opened`));
      return;
    }
    const why = this.refused(c);
    if (why) { this.ctx.send(refusal(c, why)); return; }
    const up = this.upstream!;
    this.inflight.add(c);
    const answered = (a: CdpAnswer): void => {
      if (!this.inflight.delete(c) || this.ended) return;
      if ('result' in a && c.sessionId === undefined) this.noteSuccess(c);
      this.ctx.send(answerText(c, a));
    };
    const held = c.method === 'Page.handleJavaScriptDialog' ? answerHeldDialog(this.ctx.profile, this.tab, c.params) : undefined;
    if (held) void held.then(answered);
    else up.relay(c.method, c.params, c.sessionId ?? this.sessionId, answered);
  }

  /** What a command that succeeded changes on forge's side: a dialog answered, a domain enabled. */
  private noteSuccess(c: ClientCommand): void {
    if (c.method === 'Page.handleJavaScriptDialog' && this.tab.dialog) {
      // The browser took the client's answer: forge's hold ends too (its own later answer finds no dialog and says so).
      this.tab.dialog = undefined;
      this.ctx.profile.announce();
    }
    const dot = c.method.lastIndexOf('.');
    const verb = c.method.slice(dot + 1);
    const domain = c.method.slice(0, dot);
    if (verb === 'enable') this.enabled.set(c.method, c.params);
    else if (verb === 'disable') this.enabled.delete(`${domain}.enable`);
  }

  private event(m: CdpMessage): void {
    if (this.ended) return;
    if (m.sessionId === undefined) {
      if (m.method === 'Target.detachedFromTarget' && m.params?.sessionId === this.sessionId) this.detached();
      return;
    }
    const own = m.sessionId === this.sessionId;
    if (!own && !this.children.has(m.sessionId)) return;
    const child = m.params?.sessionId;
    if (m.method === 'Target.attachedToTarget' && typeof child === 'string') this.children.add(child);
    if (m.method === 'Target.detachedFromTarget' && typeof child === 'string') this.children.delete(child);
    this.ctx.send(JSON.stringify(own ? { method: m.method, params: m.params } : m));
  }

  /** The tab's page went (unloaded, rebuilt, closed): commands under it are answered, and the next message brings it back. */
  private detached(): void {
    this.sessionId = undefined;
    this.children.clear();
    if (this.tabGone()) { this.changed(); return; }
    const why = this.tab.unloaded ? 'was unloaded to save memory' : 'lost its page';
    for (const c of this.inflight) this.ctx.send(refusal(c, `${this.name} ${why} while ${c.method} ran; send it again: the tab is reloaded on your next message`));
    this.inflight.clear();
    if (this.queue.length) void this.attach();
  }
}
