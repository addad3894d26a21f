/** A seat's tab list as its agent reads it: the list, going back to the page named App, and how many tabs are at a path. */
import type { Agent } from './server.js';

export interface SeatTabs {
  list(): Promise<string>;
  /** Back on the tab titled App (a popup that opened became the current tab). */
  toApp(): Promise<void>;
  /** How many tabs are listed at `path` (of any origin). */
  at(path: string): Promise<number>;
}

export function seatTabs(agent: Agent): SeatTabs {
  const list = async (): Promise<string> => (await agent.call('browser_tabs', { action: 'list' })).text;
  return {
    list,
    toApp: async () => {
      const n = /- (\d+): (?:\(current\) )?App · /.exec(await list())?.[1];
      await agent.call('browser_tabs', { action: 'select', index: Number(n) });
    },
    at: async (path) => ((await list()).match(new RegExp(`:\\d+${path} · page p-`, 'g')) ?? []).length,
  };
}
