/**
 * The profile's tab list as the server pushes it: subscribed on every (re)connect, held here,
 * and read by the strip's row, its panel and the takeover's picker.
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
  list: TabList | null = null;
  private listeners = new Set<(l: TabList | null) => void>();

  /** `subscribe` false for a hand-off link's page, which has no tab list. */
  constructor(conn: Connection, seat: string | null, subscribe = true) {
    conn.onState((s) => { if (s === 'open' && subscribe) conn.send(seat ? { t: 'tabs', seat } : { t: 'tabs' }); });
    conn.onMessage((m) => {
      if (m.t !== 'tabs') return;
      const msg = m as unknown as TabList;
      this.list = { profile: msg.profile, host: msg.host, closingInMinutes: msg.closingInMinutes, tabs: msg.tabs ?? [] };
      for (const cb of this.listeners) cb(this.list);
    });
  }

  onChange(cb: (l: TabList | null) => void): void {
    this.listeners.add(cb);
    cb(this.list);
  }
}

/** What a tab row says for itself: the title, else its URL, else that it is blank. */
export function tabLabel(t: TabRow): string {
  return t.title.trim() || t.url || 'a blank page';
}

/** The mark beside a tab's state: filled in use, hollow idle, a diamond while a hand-off holds it. */
export const STATE_MARK: Record<TabRow['state'], string> = { 'in use': '●', idle: '○', held: '◆' };
