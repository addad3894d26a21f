/**
 * The memory budget of a profile's tabs: how many tabs no viewer shows stay loaded, counted apart
 * for tabs an agent used last and tabs a person used last, so agents opening pages never unload
 * the page a person just looked at, and a person's browsing never unloads an agent's work.
 * Plain choice over the tab list: the profile does the unloading.
 */
import type { Tab, TabUser } from './tabs.js';

export type BudgetCaps = Record<TabUser, number>;

/**
 * Whether the budget may unload the tab at all: an owned, loaded page nobody shows, no hand-off
 * holds, no dialog or file chooser waits on, no call runs on, and whose renderer is alive.
 */
export function unloadable(tab: Tab, shown: (tab: Tab) => boolean): boolean {
  return tab.owner !== null && !tab.unloaded && !tab.heldBy && !tab.dialog && !tab.fileChooser && tab.busy === 0 && !tab.crashed && !shown(tab);
}

/** The tabs past their group's cap, least recently used first: what the profile unloads now. */
export function overBudget(tabs: Tab[], caps: BudgetCaps, shown: (tab: Tab) => boolean): Tab[] {
  const out: Tab[] = [];
  for (const user of ['agent', 'person'] as const) {
    const hidden = tabs.filter((t) => t.lastUser === user && unloadable(t, shown)).sort((a, b) => b.lastUsed - a.lastUsed || b.number - a.number);
    out.push(...hidden.slice(caps[user]).reverse());
  }
  return out;
}
