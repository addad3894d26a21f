/**
 * A profile's tab list as a viewer's token may see it: every owned tab for an org-wide token,
 * those of its seats or its one tab for a limited one, with the host's state and when an
 * unwatched host closes.
 */
import type { ServerMessage } from '../../../shared/protocol.js';
import { tabAllowed, type ViewerGrant } from '../../../shared/grants.js';
import type { ProfileBrowser } from '../profile.js';
import type { Tab } from '../tabs.js';

export type TabListMessage = Extract<ServerMessage, { t: 'tabs' }>;

/** A person's token for the whole org: every subscriber with one sees the same tab list. */
export function isWholeOrg(g: ViewerGrant): boolean {
  return g.kind === 'person' && g.seats === null && g.tab === undefined;
}

/** The tabs a grant covers. The host's unowned blank boot tab is nobody's page: it is never listed. */
export function visibleTabs(p: ProfileBrowser, grant: ViewerGrant): Tab[] {
  return p.host?.alive ? p.tabs.all().filter((t) => t.owner && tabAllowed(grant, t.pageId, t.owner)) : [];
}

/** The list: `audible` says which tabs play sound; `idleMinutes` is [browser] idle_minutes, for the closing hint. */
export function tabList(p: ProfileBrowser, grant: ViewerGrant, audible: (t: Tab) => boolean, idleMinutes: number): TabListMessage {
  const tabs = visibleTabs(p, grant).map((t) => ({ ...p.tabs.row(t, p.seatInUse), ...(audible(t) ? { audible: true } : {}) }));
  const held = tabs.some((t) => t.state === 'held');
  const closing = p.host?.alive && p.viewers === 0 && !held
    ? { closingInMinutes: Math.max(0, Math.ceil(idleMinutes - (Date.now() - p.lastActivity) / 60_000)) } : {};
  return { t: 'tabs', profile: p.key, host: p.hostState, ...closing, tabs };
}
