/**
 * The home's live thumbnails. A viewer names the tabs its home shows on screen (`thumbs`, an
 * empty list while the page is hidden); each named tab is shot every THUMB_PERIOD_MS and the
 * picture pushed (`thumb`) to the viewers naming it, only when it changed. The whole server
 * shoots at most THUMB_SHOTS_PER_S a second, the least recently shot first, whatever the number
 * of homes open (ThumbClock): the budget `./forge bench thumbs` measures.
 */
import type { CDPSession } from 'playwright-core';
import { tabAllowed } from '../../shared/grants.js';
import type { ClientMessageOf } from '../../shared/protocol.js';
import { ForgeError } from '../../shared/errors.js';
import type { ViewerHub, ViewerInfo } from '../viewers.js';
import type { ProfileBrowser } from './profile.js';
import type { Tab } from './tabs.js';
import { THUMB_TICK_MS, ThumbClock, shootThumb, withinShotDeadline } from './thumb-shot.js';

/** Tabs one viewer may name at once: more than any screen shows, so a nonsense list is bounded (the door's schema refuses more). */
export const THUMB_ASK_MAX_TABS = 64;

interface Shot { tab: Tab; session?: Promise<CDPSession>; lastBegan: number; busy: boolean; last?: Uint8Array }

export class Thumbnails {
  /** The page ids each viewer's home shows now. */
  private readonly wanted = new Map<number, Set<string>>();
  private readonly shots = new Map<string, Shot>();
  private readonly clock = new ThumbClock();
  private timer?: NodeJS.Timeout;

  constructor(private readonly hub: ViewerHub, private readonly profiles: () => ProfileBrowser[]) {}

  attach(): void {
    this.hub.on('thumbs', (v, m) => this.ask(v, m));
    this.hub.onClose((v) => { this.wanted.delete(v.id); this.prune(); });
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const s of this.shots.values()) this.forget(s);
  }

  private ask(v: ViewerInfo, m: ClientMessageOf<'thumbs'>): void {
    if (v.handoff) throw new ForgeError('auth', 'a hand-off link shows its own page only; it has no home of thumbnails');
    const ids = new Set(m.pageIds.filter((id) => this.tabFor(v, id)));
    this.wanted.set(v.id, ids);
    // What is already shot shows at once; the next change follows.
    for (const id of ids) {
      const last = this.shots.get(id)?.last;
      if (last) this.hub.send(v.id, { t: 'thumb', pageId: id, webp: last });
    }
    this.prune();
    if (!this.timer && ids.size) {
      this.timer = setInterval(() => this.tick(), THUMB_TICK_MS);
      this.timer.unref();
    }
  }

  /** The viewer's grant covers the page, and it is a tab of a running host. */
  private tabFor(v: ViewerInfo, pageId: string): Tab | undefined {
    for (const p of this.profiles()) {
      const t = p.host?.alive ? p.tabs.get(pageId) : undefined;
      if (t?.owner && tabAllowed(v.grant, t.pageId, t.owner)) return t;
    }
    return undefined;
  }

  private viewersOf(pageId: string): number[] {
    return [...this.wanted].filter(([, ids]) => ids.has(pageId)).map(([id]) => id);
  }

  /** Tabs no home shows any more are let go, with their CDP sessions; no home at all stops the clock. */
  private prune(): void {
    const all = new Set([...this.wanted.values()].flatMap((s) => [...s]));
    for (const [id, s] of this.shots) if (!all.has(id)) this.forget(s);
    if (all.size === 0) { clearInterval(this.timer); this.timer = undefined; }
  }

  private forget(s: Shot): void {
    this.shots.delete(s.tab.pageId);
    void s.session?.then((c) => c.detach()).catch(() => undefined);
  }

  private tick(): void {
    const wanted: Shot[] = [];
    for (const id of new Set([...this.wanted.values()].flatMap((s) => [...s]))) {
      const found = this.findTab(id);
      if (!found) continue;
      const { profile, tab } = found;
      let s = this.shots.get(id);
      if (s && s.tab !== tab) { this.forget(s); s = undefined; }
      if (!s) { s = { tab, lastBegan: 0, busy: false }; this.shots.set(id, s); }
      // An unloaded or crashed page has no picture; a held dialog stops the page's paint. A tab
      // some viewer shows is not shot: a shot of it would compete with its live picture and with
      // the layout its viewers give it (a thumbnail keeps its last picture meanwhile).
      if (tab.unloaded || tab.crashed || tab.dialog || profile.isShown(tab)) continue;
      wanted.push(s);
    }
    for (const s of this.clock.due(wanted, performance.now())) void this.shoot(s);
  }

  /** The running tab with this page id, with the profile it lives in. */
  private findTab(pageId: string): { profile: ProfileBrowser; tab: Tab } | undefined {
    for (const p of this.profiles()) {
      const t = p.host?.alive ? p.tabs.get(pageId) : undefined;
      if (t) return { profile: p, tab: t };
    }
    return undefined;
  }

  private async shoot(s: Shot): Promise<void> {
    s.busy = true;
    try {
      s.session ??= s.tab.page.context().newCDPSession(s.tab.page);
      const session = await s.session;
      const webp = await withinShotDeadline(shootThumb((m, p) => session.send(m as 'Page.captureScreenshot', p as never) as Promise<unknown>));
      if (this.shots.get(s.tab.pageId) !== s || (s.last && same(s.last, webp))) return;
      s.last = webp;
      this.hub.send(this.viewersOf(s.tab.pageId), { t: 'thumb', pageId: s.tab.pageId, webp });
    } catch {
      // A page closing or rebuilt under the shot: a fresh session on the next try.
      void s.session?.then((c) => c.detach()).catch(() => undefined);
      s.session = undefined;
    } finally {
      s.busy = false;
    }
  }
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
