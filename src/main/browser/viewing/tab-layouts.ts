/**
 * The layout each shown tab has, and how it changes: the page is laid out at its layout owner's
 * size (the owner is the viewing's to name: the controller, else the longest watcher), or at an
 * agent's recording's file size while a take runs, one change after another per tab.
 */
import type { Rect } from '../../../shared/capture.js';
import type { ViewRecording } from '../../../shared/protocol.js';
import { OneByOne } from '../../../shared/one-by-one.js';
import type { BrowserHost } from '../host/host.js';
import type { Tab } from '../tabs.js';
import type { HostFrameSources } from './host-frames.js';
import type { Size } from './layout.js';

/** A tab's layout now, and the window (CDP target) it was captured from: a rebuilt page has a new one. */
export interface TabLayout extends Size { targetId: string; viewport: Rect }

/** Whose size a tab is laid out at: the size that viewer asks for, on its host. */
export interface LayoutOwner extends Size { host: BrowserHost | undefined }

export class TabLayouts {
  /** By page id. */
  private readonly layouts = new Map<string, TabLayout>();
  /** Each tab's layout changes, one by one (see relayout); a closed tab's go with it. */
  private readonly changes = new WeakMap<Tab, OneByOne>();
  /** The agents' recordings, by page id: while one runs, the tab is laid out at the file's size whoever views it. */
  private readonly takes = new Map<string, ViewRecording>();

  constructor(private readonly frames: HostFrameSources, private readonly ownerOf: (tab: Tab) => LayoutOwner | undefined) {}

  of(tab: Tab): TabLayout | undefined { return this.layouts.get(tab.pageId); }

  /** The recording running on the tab, if one is. */
  takeOf(tab: Tab): ViewRecording | undefined { return this.takes.get(tab.pageId); }

  /** A recording of the tab starts (or, with null, ends); relayout puts it into effect. */
  setTake(tab: Tab, take: ViewRecording | null): void {
    if (take) this.takes.set(tab.pageId, take); else this.takes.delete(tab.pageId);
  }

  /** Whether the tab's page was rebuilt in another window since its layout was set. */
  moved(tab: Tab): boolean {
    const now = this.layouts.get(tab.pageId);
    return !!now && now.targetId !== tab.targetId;
  }

  /** Nobody shows the tab any more: its next viewer lays it out afresh. */
  forget(tab: Tab): void { this.layouts.delete(tab.pageId); }

  /**
   * Lays the tab out at its owner's size, one change after another per tab: two asks at once (a
   * resize beside a role change) restart its capture once, not once each, which would drop its
   * picture and cost a keyframe for nothing.
   */
  relayout(tab: Tab): Promise<void> {
    let changes = this.changes.get(tab);
    if (!changes) { changes = new OneByOne(); this.changes.set(tab, changes); }
    return changes.run(() => this.layOut(tab));
  }

  private async layOut(tab: Tab): Promise<void> {
    const owner = this.ownerOf(tab);
    if (!owner?.host) return;
    const take = this.takes.get(tab.pageId);
    const want = take ? { w: take.width, h: take.height } : { w: owner.w, h: owner.h };
    const now = this.layouts.get(tab.pageId);
    if (now && now.w === want.w && now.h === want.h && now.targetId === tab.targetId) return;
    const frames = await this.frames.of(owner.host);
    const viewport = await frames.pipeline.capture(tab.targetId, this.frames.frameId(tab), want.w, want.h);
    this.layouts.set(tab.pageId, { ...want, targetId: tab.targetId, viewport });
  }
}
