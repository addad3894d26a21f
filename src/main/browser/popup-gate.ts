/**
 * The popup rules' backstop in the server. The page's start script (init-script.ts) refuses a
 * window.open the rules forbid, but a page has other ways to open a window: a link or a form with
 * a named target, a blank window it sends elsewhere afterwards, a frame's own link. So the first
 * document a new popup asks for is paused before it is sent (the driver's browser-wide Fetch rule)
 * and judged by the same rules; a refused one fails as blocked and its window is closed, so
 * nothing of it commits:
 * - a window opened from a frame from another origin than its page's is refused, whatever its address;
 * - one opened from a frame of the page's own origin is refused at any other origin's web address;
 * - a page holding a live popup at another site opens no second one at another site (a
 *   noopener open is no popup, and is not counted).
 */
import type { CDPSession } from 'playwright-core';
import type { OpenRule } from './init-script.js';

/**
 * A site as the popup rules count it: the scheme and the host's last two labels (an IP address
 * whole). Without the public suffix list a.co.uk and b.co.uk count as one site, so such a pair is
 * let through. It takes any URL-like object (`location` too): the page's start script runs its
 * source as it is.
 */
export function siteOf(u: { protocol: string; hostname: string }): string {
  const h = u.hostname || '';
  const ip = /^[0-9.]+$/.test(h) || h.includes(':');
  return u.protocol + '//' + (ip ? h : h.split('.').slice(-2).join('.'));
}

/** A new popup's first document request, as the driver paused it. `severed`: a noopener open. */
export interface PopupFirstLoad { targetId: string; openerId: string; openerFrameId?: string; severed: boolean; url: string }

/** What the judge needs of the opener: its top frame's address, a frame's address and origin, and its live popups at another site. */
export interface OpenerFacts {
  topUrl: string;
  /** `origin`: the frame's security origin (a blank frame's is its parent's, which its address does not say). */
  frame(frameId: string): Promise<{ url: string; origin: string } | undefined>;
  /** How many popups it opened at another site are still open (or opening). */
  liveCrossSite(): number;
}

/** A refusal: the rule, and the frame that opened the window (its address, or words when it is gone). */
export interface GateRefusal { rule: OpenRule; frame: string }

function parse(url: string): URL | undefined {
  try { return new URL(url); } catch { return undefined; }
}

/** Judges a popup's first load: null lets it through, a refusal names the rule. `crossSite` is true when it counts as a popup at another site. */
export async function judgeFirstLoad(p: PopupFirstLoad, opener: OpenerFacts): Promise<{ refusal: GateRefusal | null; crossSite: boolean }> {
  const top = parse(opener.topUrl);
  const dest = parse(p.url);
  const web = !!dest && (dest.protocol === 'http:' || dest.protocol === 'https:');
  // A page's main frame id is its target id: any other opener frame is a subframe.
  if (p.openerFrameId && p.openerFrameId !== p.openerId) {
    const frame = await opener.frame(p.openerFrameId);
    // A frame gone before its window loads cannot be judged: it is refused, as a frame from elsewhere would be.
    if (!frame || !top || frame.origin !== top.origin || frame.origin === 'null') {
      return { refusal: { rule: 'cross-origin-frame', frame: frame?.url ?? 'a frame that has since gone' }, crossSite: false };
    }
    if (web && dest.origin !== top.origin) return { refusal: { rule: 'frame-other-origin', frame: frame.url }, crossSite: false };
  }
  const crossSite = web && !p.severed && !!top && siteOf(dest) !== siteOf(top);
  if (crossSite && opener.liveCrossSite() > 0) return { refusal: { rule: 'second-cross-site', frame: opener.topUrl }, crossSite };
  return { refusal: null, crossSite };
}

interface FrameTree { frame: { id: string; url: string; urlFragment?: string; securityOrigin: string }; childFrames?: FrameTree[] }

/**
 * A frame of the page by its id: its address and security origin, asked of the page's own CDP
 * session, else (a frame from another site runs in a process of its own, outside the page's frame
 * tree) of the browser, whose target for such a frame carries the frame's id.
 */
export async function frameOf(session: CDPSession | undefined, browser: CDPSession | undefined, frameId: string): Promise<{ url: string; origin: string } | undefined> {
  const inPage = session ? await frameInTree(session, frameId) : undefined;
  if (inPage || !browser) return inPage;
  const { targetInfo } = (await browser.send('Target.getTargetInfo', { targetId: frameId }).catch(() => ({ targetInfo: undefined }))) as { targetInfo?: { type: string; url: string } };
  if (targetInfo?.type !== 'iframe') return undefined;
  let origin = 'null';
  try { origin = new URL(targetInfo.url).origin; } catch { /* not a URL */ }
  return { url: targetInfo.url, origin };
}

async function frameInTree(session: CDPSession, frameId: string): Promise<{ url: string; origin: string } | undefined> {
  const { frameTree } = (await session.send('Page.getFrameTree').catch(() => ({ frameTree: undefined }))) as { frameTree?: FrameTree };
  const walk = (t: FrameTree | undefined): FrameTree['frame'] | undefined => {
    if (!t) return undefined;
    if (t.frame.id === frameId) return t.frame;
    for (const c of t.childFrames ?? []) { const f = walk(c); if (f) return f; }
    return undefined;
  };
  const f = walk(frameTree);
  return f ? { url: f.url + (f.urlFragment ?? ''), origin: f.securityOrigin } : undefined;
}

/**
 * Refused popups remembered until their page reaches the registry, at most: a refused window's
 * page arrives within moments or never (it was closed first), so the oldest are let go.
 */
export const REFUSED_POPUPS_KEPT_MAX = 256;

/** Target ids of popups refused at their first load whose page the registry has not seen yet. */
export class RefusedPopups {
  private readonly ids = new Set<string>();

  add(targetId: string): void {
    if (this.ids.size >= REFUSED_POPUPS_KEPT_MAX) this.ids.delete(this.ids.values().next().value!);
    this.ids.add(targetId);
  }

  /** Whether the popup was refused; it is forgotten either way. */
  take(targetId: string): boolean {
    return this.ids.delete(targetId);
  }
}
