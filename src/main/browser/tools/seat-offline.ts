/**
 * A seat's offline state: going offline takes only the seat's own tabs off the network, and a tab
 * it opens (or forge rebuilds) meanwhile is taken off too before its next call runs.
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { ProfileBrowser } from '../profile.js';
import type { Tab } from '../tabs.js';

/** Tabs taken offline, per seat of each host. */
const offlineSeats = new WeakMap<BrowserContext, Set<string>>();
/** Pages taken offline: a tab rebuilt on a new page (unloaded, crashed) is taken offline again. */
const offlinePages = new WeakSet<Page>();

/** Marks the seat offline or online on the host's context; its tabs are set one by one with setOffline. */
export function markSeatOffline(ctx: BrowserContext, seat: string, offline: boolean): void {
  let seats = offlineSeats.get(ctx);
  if (!seats) { seats = new Set(); offlineSeats.set(ctx, seats); }
  if (offline) seats.add(seat); else seats.delete(seat);
}

export async function setOffline(p: ProfileBrowser, tab: Tab, offline: boolean): Promise<void> {
  const session = p.driver?.session(tab.page);
  if (!session) return;
  await session.send('Network.enable');
  await session.send('Network.emulateNetworkConditions', { offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  if (offline) offlinePages.add(tab.page); else offlinePages.delete(tab.page);
}

/** Takes a tab the seat opened since it went offline off the network too, before its call runs. */
export async function keepSeatNetwork(p: ProfileBrowser, seat: string, tab: Tab): Promise<void> {
  const ctx = p.driver?.context;
  if (ctx && offlineSeats.get(ctx)?.has(seat) && !offlinePages.has(tab.page)) await setOffline(p, tab, true);
}
