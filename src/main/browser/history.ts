/**
 * The back and forward arrows: the page's own history, read with Page.getNavigationHistory on
 * attach and after every committed navigation (same-document ones included), pushed as two
 * booleans. A query that cannot be read is no news: the arrows stay as they were.
 */
import type { Page } from 'playwright-core';
import type { ServerMessage } from '../../shared/protocol.js';
import { ForgeError } from '../../shared/errors.js';
import type { ProfileBrowser } from './profile.js';
import type { Tab } from './tabs.js';

/** Wait before the one second try of a history read the page refused, ms. */
const HISTORY_READ_RETRY_MS = 100;

interface History { currentIndex: number; entries: Array<{ id: number; url: string }> }

export class NavigationArrows {
  private hooked = new WeakSet<Page>();
  private watched = new WeakSet<Tab>();
  private last = new WeakMap<Tab, { back: boolean; forward: boolean }>();

  constructor(private readonly push: (tab: Tab, msg: ServerMessage) => void) {}

  private async read(tab: Tab, p: ProfileBrowser): Promise<History | undefined> {
    const session = p.driver?.session(tab.page);
    if (!session) return undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        return (await session.send('Page.getNavigationHistory')) as History;
      } catch {
        // A page mid-commit may refuse the read: asked once more a moment later.
        if (attempt >= 1) return undefined;
        await new Promise((r) => setTimeout(r, HISTORY_READ_RETRY_MS));
      }
    }
  }

  /** Reads the history and pushes the arrows to the tab's viewers; a failed read changes nothing. */
  async refresh(tab: Tab, p: ProfileBrowser): Promise<void> {
    this.follow(tab, p);
    const h = await this.read(tab, p);
    if (!h) {
      const prev = this.last.get(tab);
      if (prev) this.push(tab, { t: 'history', tab: tab.number, ...prev });
      return;
    }
    const arrows = { back: h.currentIndex > 0, forward: h.currentIndex < h.entries.length - 1 };
    this.last.set(tab, arrows);
    this.push(tab, { t: 'history', tab: tab.number, ...arrows });
  }

  forget(tab: Tab): void { this.watched.delete(tab); }

  /** The tab's arrows follow its page's navigations from now on (a rebuilt tab's new page too). */
  follow(tab: Tab, p: ProfileBrowser): void {
    this.watched.add(tab);
    this.hook(tab, p);
  }

  private hook(tab: Tab, p: ProfileBrowser): void {
    const page = tab.page;
    if (this.hooked.has(page)) return;
    this.hooked.add(page);
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && this.watched.has(tab) && tab.page === page) void this.refresh(tab, p);
    });
  }

  async go(tab: Tab, p: ProfileBrowser, dir: 'back' | 'forward'): Promise<void> {
    const h = await this.read(tab, p);
    if (!h) throw new ForgeError('host_not_answering', 'the page\'s history could not be read; the arrows are unchanged');
    const entry = h.entries[h.currentIndex + (dir === 'back' ? -1 : 1)];
    if (!entry) throw new ForgeError('bad_request', `tab ${tab.number} has no page to go ${dir} to`);
    await p.driver!.session(tab.page)!.send('Page.navigateToHistoryEntry', { entryId: entry.id });
  }
}
