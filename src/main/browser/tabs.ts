/**
 * A profile's tabs: the host's numbers, stable page ids, owners, popups, held dialogs, and each
 * seat's current tab. Plain bookkeeping: no driver calls here, so every rule is testable alone.
 */
import { randomBytes } from 'node:crypto';
import type { Dialog, FileChooser, Page } from 'playwright-core';
import type { TabRow } from '../../shared/protocol.js';
import { ForgeError } from '../../shared/errors.js';

export type TabUser = 'agent' | 'person';

export type DialogKind = 'alert' | 'confirm' | 'prompt' | 'beforeunload';

/** A dialog kind with its article, as a sentence names it: "an alert", "a confirm". */
export function aDialog(kind: DialogKind): string {
  return kind === 'alert' ? 'an alert' : `a ${kind}`;
}

export interface HeldDialog { kind: DialogKind; message: string; defaultValue: string; dialog: Dialog }

export interface Tab {
  /** The host's number: 1, 2, … in order of opening; a fresh host starts again at 1. */
  number: number;
  /** Stable id that outlives renumbering: `p-` and 8 hex digits. */
  pageId: string;
  page: Page;
  targetId: string;
  /** The title the page last reported, kept current from its load events. */
  title: string;
  /** The owning seat key, or null for the host's boot tab nobody has adopted. */
  owner: string | null;
  openerPageId?: string;
  popups: Set<string>;
  dialog?: HeldDialog;
  /** Page calls in flight on this tab that a dialog opening answers at once. */
  dialogWaiters: Set<() => void>;
  fileChooser?: FileChooser;
  crashed: boolean;
  /** Held by a parked hand-off: the idle clock and the dead-seat sweep leave it alone. */
  heldBy?: string;
  lastUsed: number;
  /** Who used the tab last: an agent's call, or a person showing it. The memory budget counts the two apart. */
  lastUser: TabUser;
  /** Page calls (or a rebuild) running on the tab now: the memory budget never unloads it under them. */
  busy: number;
  /** Set while the memory budget has the tab unloaded: its window closed, its address kept for the rebuild. */
  unloaded?: { url: string; at: number };
  /** Notes for the owner's next tool result (a refused popup, a closed popup). */
  notices: string[];
}

export function newPageId(): string {
  return `p-${randomBytes(4).toString('hex')}`;
}

export class TabRegistry {
  private tabs = new Map<string, Tab>();
  private nextNumber = 1;
  /** Each seat's current tab, by page id. */
  private current = new Map<string, string>();

  add(init: Omit<Tab, 'number' | 'pageId' | 'popups' | 'crashed' | 'lastUsed' | 'lastUser' | 'busy' | 'notices' | 'dialogWaiters'>): Tab {
    const tab: Tab = { ...init, number: this.nextNumber++, pageId: newPageId(), popups: new Set(), crashed: false, lastUsed: Date.now(), lastUser: 'agent', busy: 0, notices: [], dialogWaiters: new Set() };
    this.tabs.set(tab.pageId, tab);
    return tab;
  }

  remove(pageId: string): Tab | undefined {
    const tab = this.tabs.get(pageId);
    if (!tab) return undefined;
    this.tabs.delete(pageId);
    if (tab.openerPageId) this.tabs.get(tab.openerPageId)?.popups.delete(pageId);
    for (const [seat, id] of this.current) {
      if (id !== pageId) continue;
      // A popup that closes hands its seat back to the tab that opened it.
      const opener = tab.openerPageId ? this.tabs.get(tab.openerPageId) : undefined;
      if (opener && opener.owner === seat) this.current.set(seat, opener.pageId);
      else {
        const other = this.ownedBy(seat)[0];
        if (other) this.current.set(seat, other.pageId);
        else this.current.delete(seat);
      }
    }
    return tab;
  }

  /**
   * The tab goes back to the host as its unowned boot tab under a new page id: Chromium quits when
   * its last window closes, so the last tab is blanked rather than closed.
   */
  release(tab: Tab): void {
    for (const [seat, id] of this.current) if (id === tab.pageId) this.current.delete(seat);
    this.tabs.delete(tab.pageId);
    tab.pageId = newPageId();
    tab.owner = null;
    tab.title = '';
    tab.dialog = undefined;
    tab.fileChooser = undefined;
    tab.notices = [];
    this.tabs.set(tab.pageId, tab);
    for (const [seat, id] of this.current) if (!this.tabs.has(id)) this.current.delete(seat);
  }

  clear(): Tab[] {
    const all = [...this.tabs.values()];
    this.tabs.clear();
    this.current.clear();
    this.nextNumber = 1;
    return all;
  }

  get(pageId: string): Tab | undefined { return this.tabs.get(pageId); }
  byPage(page: Page): Tab | undefined { for (const t of this.tabs.values()) if (t.page === page) return t; return undefined; }
  byTarget(targetId: string): Tab | undefined { for (const t of this.tabs.values()) if (t.targetId === targetId) return t; return undefined; }
  byNumber(n: number): Tab | undefined { for (const t of this.tabs.values()) if (t.number === n) return t; return undefined; }
  all(): Tab[] { return [...this.tabs.values()].sort((a, b) => a.number - b.number); }
  ownedBy(seat: string): Tab[] { return this.all().filter((t) => t.owner === seat); }
  bootTab(): Tab | undefined { return this.all().find((t) => t.owner === null); }
  get size(): number { return this.tabs.size; }

  currentOf(seat: string): Tab | undefined {
    const id = this.current.get(seat);
    return id ? this.tabs.get(id) : undefined;
  }

  setCurrent(seat: string, tab: Tab): void {
    if (tab.owner !== seat) throw new ForgeError('tab_not_yours', refuseNotYours(tab));
    this.current.set(seat, tab.pageId);
  }

  /** A tab the seat names by number or page id: refused by name when it is not the seat's. */
  resolveOwn(seat: string, ref: { number?: number; pageId?: string }): Tab {
    const tab = ref.pageId !== undefined ? this.get(ref.pageId) : ref.number !== undefined ? this.byNumber(ref.number) : undefined;
    const name = ref.pageId ?? `tab ${ref.number}`;
    if (!tab) throw new ForgeError('tab_not_open', `${name} is not open; ${this.describeFor(seat)}`);
    if (tab.owner !== seat) throw new ForgeError('tab_not_yours', refuseNotYours(tab));
    return tab;
  }

  /** A one-line summary of the seat's own tabs, for refusals. */
  describeFor(seat: string): string {
    const own = this.ownedBy(seat);
    if (own.length === 0) return 'you have no tab open';
    return `your tabs: ${own.map((t) => `tab ${t.number} (${t.pageId})`).join(', ')}`;
  }

  row(tab: Tab, inUse: (seat: string) => boolean): TabRow {
    const state: TabRow['state'] = tab.heldBy ? 'held' : tab.owner && inUse(tab.owner) ? 'in use' : 'idle';
    return {
      number: tab.number,
      pageId: tab.pageId,
      title: safeTitle(tab),
      url: safeUrl(tab),
      owner: tab.owner ?? '',
      state,
      loaded: !tab.crashed && !tab.unloaded,
      ...(tab.dialog ? { dialog: { kind: tab.dialog.kind, message: tab.dialog.message } } : {}),
    };
  }
}

export function refuseNotYours(tab: Tab): string {
  return tab.owner
    ? `tab ${tab.number} (${tab.pageId}) belongs to ${tab.owner}; your calls drive only your own tabs`
    : `tab ${tab.number} (${tab.pageId}) is the host's boot tab; your first page call adopts it`;
}

/** A call's news that its tab raised a dialog (the tab has one held now). */
export function dialogOpened(tab: Tab): string {
  const d = tab.dialog!;
  return `tab ${tab.number} (${tab.pageId}) opened ${aDialog(d.kind)} dialog: ${JSON.stringify(d.message)}. It holds the tab until browser_handle_dialog answers it.`;
}

export function dialogRefusal(tab: Tab): string {
  const d = tab.dialog!;
  return `tab ${tab.number} (${tab.pageId}) is held by ${aDialog(d.kind)} dialog: ${JSON.stringify(d.message)} — the tab belongs to ${tab.owner ?? 'nobody'}; answer it with browser_handle_dialog (accept true or false), or close the tab with browser_tabs`;
}

/** A call refused because its tab's page asked for files: the chooser holds it as a dialog does. */
export function chooserRefusal(tab: Tab): string {
  const many = tab.fileChooser?.isMultiple() ? 'files' : 'a file';
  return `tab ${tab.number} (${tab.pageId}) is held by a file chooser: its page asked for ${many} — the tab belongs to ${tab.owner ?? 'nobody'}; answer it with browser_file_upload (files or paths, or neither to cancel), hand it to your person with browser_hand_off, or close the tab with browser_tabs`;
}

function safeUrl(tab: Tab): string {
  if (tab.unloaded) return tab.unloaded.url;
  try { return tab.page.url(); } catch { return ''; }
}

/** The title Playwright last saw; never a driver call. */
export function safeTitle(tab: Tab): string {
  return tab.title;
}
