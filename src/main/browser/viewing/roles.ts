/**
 * The controller role: at most one viewer per tab holds it. Only its gestures and history arrows
 * reach the page; a watcher's are refused here, in words that say what to do first.
 */
import { ForgeError } from '../../../shared/errors.js';
import type { Tab } from '../tabs.js';

export class TabRoles {
  /** The controller viewer per tab, by page id. */
  private readonly controllers = new Map<string, number>();

  holder(tab: Tab): number | null { return this.controllers.get(tab.pageId) ?? null; }

  holds(viewer: number, tab: Tab): boolean { return this.controllers.get(tab.pageId) === viewer; }

  /** The viewer takes the role (from whoever held it) or releases it; answers whether its own hold changed. */
  set(viewer: number, tab: Tab, take: boolean): boolean {
    const held = this.holds(viewer, tab);
    if (take) this.controllers.set(tab.pageId, viewer);
    else if (held) this.controllers.delete(tab.pageId);
    return take !== held;
  }

  /** The viewer stopped watching the tab: a role it held is nobody's now. */
  left(viewer: number, tab: Tab): void {
    if (this.holds(viewer, tab)) this.controllers.delete(tab.pageId);
  }

  /** The watch a viewer drives `what` on: refused unless it watches a tab and holds that tab's role. */
  driving<W extends { tab: Tab }>(viewer: number, w: W | undefined, what: string): W {
    if (!w) throw new ForgeError('not_controller', `attach to a tab and take control before ${what}`);
    if (!this.holds(viewer, w.tab)) throw new ForgeError('not_controller', `you are watching tab ${w.tab.number}; take control before ${what}`);
    return w;
  }
}
