/**
 * The profile's tab list as the server pushes it: subscribed on every (re)connect, held here,
 * and read by the strip's row, its panel and the takeover's picker. The org's other profiles'
 * lists (projects with a browser profile of their own) come too, for the home's seat cards and
 * for a picker over a tab of theirs.
 */
import type { TabRow } from '../../src/shared/protocol.js';
import type { Connection } from './connection.js';

export type HostState = 'connected' | 'idle' | 'none';

export interface TabList {
  profile: string;
  host: HostState;
  closingInMinutes?: number;
  tabs: TabRow[];
}

export class Tabs {
  /** This page's own profile's list (its seat's, else the org's): the strip's row. */
  list: TabList | null = null;
  /** The org's other profiles' lists, by profile key. */
  private readonly others = new Map<string, TabList>();
  private listeners = new Set<(l: TabList | null) => void>();

  /** `subscribe` false for a hand-off link's page, which has no tab list. */
  constructor(conn: Connection, seat: string | null, subscribe = true) {
    conn.onState((s) => { if (s === 'open' && subscribe) conn.send({ t: 'tabs', every: true, ...(seat ? { seat } : {}) }); });
    conn.onMessage((m) => {
      if (m.t !== 'tabs') return;
      const msg = m as unknown as TabList & { also?: boolean };
      const l = { profile: msg.profile, host: msg.host, closingInMinutes: msg.closingInMinutes, tabs: msg.tabs ?? [] };
      if (msg.also) this.others.set(l.profile, l);
      else this.list = l;
      for (const cb of this.listeners) cb(this.list);
    });
  }

  onChange(cb: (l: TabList | null) => void): void {
    this.listeners.add(cb);
    cb(this.list);
  }

  /** Every tab of every profile of the org this page's token covers: its own profile's first. */
  allRows(): TabRow[] {
    return [...(this.list?.tabs ?? []), ...[...this.others.values()].flatMap((l) => l.tabs)];
  }

  /** The list of the profile that has this page id, if any. */
  listHolding(pageId: string): TabList | null {
    for (const l of [this.list, ...this.others.values()]) if (l?.tabs.some((t) => t.pageId === pageId)) return l;
    return null;
  }

  /** A profile's list by key: this page's own or another of the org's. */
  listOf(profile: string): TabList | null {
    return this.list?.profile === profile ? this.list : this.others.get(profile) ?? null;
  }
}

/** What a tab row says for itself: the title, else its URL, else that it is blank. */
export function tabLabel(t: TabRow): string {
  return t.title.trim() || t.url || 'a blank page';
}

/** The mark beside a tab's state: filled in use, hollow idle, a diamond while a hand-off holds it. */
export const STATE_MARK: Record<TabRow['state'], string> = { 'in use': '●', idle: '○', held: '◆' };
