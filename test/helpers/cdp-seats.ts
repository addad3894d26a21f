/**
 * Two seats of one project, each on a page of its own (titled Mine and Theirs), for the tests of
 * the seat's CDP endpoint: the file's forge and pages from the fixture, both agents connected and
 * navigated before the first test, and `/opened` (titled `openedTitle`) for the client to open.
 *
 *   const it = cdpSeatsTest('pptr', 'Opened by Puppeteer');
 *   it('…', async ({ seats }) => { seats.url(seats.LEAD) … });
 */
import { forgeTest } from '../fixtures.js';
import { cdpUrl } from './cdp-socket.js';
import type { Agent } from './server.js';

export interface CdpSeats {
  LEAD: string;
  OTHER: string;
  /** The lead's agent, on `/mine` (titled Mine). */
  lead: Agent;
  /** The other seat's agent, on `/theirs` (titled Theirs). */
  other: Agent;
  /** The seat's CDP endpoint with the agents' key. */
  url: (seat: string) => string;
}

/** How long a tab list is read again for a change the client made (forge learns it from the page's load events, a moment after the client). */
const LIST_WAIT_MS = 5_000;
/** Pause between two reads of a tab list. */
const LIST_POLL_MS = 100;

/** The agent's browser_tabs list once `ok` holds for it (or the last one after LIST_WAIT_MS). */
export async function listUntil(agent: Agent, ok: (text: string) => boolean): Promise<string> {
  let text = '';
  for (let i = 0; i < LIST_WAIT_MS / LIST_POLL_MS; i++) {
    text = (await agent.call('browser_tabs', { action: 'list' })).text;
    if (ok(text)) break;
    await new Promise((r) => setTimeout(r, LIST_POLL_MS));
  }
  return text;
}

/** The fixture with `seats`: `default/<project>/lead` and `default/<project>/other`, each on its own page. */
export function cdpSeatsTest(project: string, openedTitle: string) {
  const routes = {
    '/mine': '<title>Mine</title>mine',
    '/theirs': '<title>Theirs</title>theirs',
    '/opened': `<title>${openedTitle}</title>opened`,
  };
  return forgeTest({}, routes).extend('seats', { scope: 'file' }, async ({ forge, pages, agentFor }): Promise<CdpSeats> => {
    const LEAD = `default/${project}/lead`;
    const OTHER = `default/${project}/other`;
    const lead = await agentFor(LEAD);
    const other = await agentFor(OTHER);
    await lead.call('browser_navigate', { url: `${pages.origin}/mine` });
    await other.call('browser_navigate', { url: `${pages.origin}/theirs` });
    const url = (seat: string): string => cdpUrl(forge.info.port, '/cdp', { seat, token: forge.info.token });
    return { LEAD, OTHER, lead, other, url };
  });
}
