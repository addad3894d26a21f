/**
 * What happened on a seat's tabs between its calls (a person answered a file chooser, a download
 * finished or was lost): kept per profile and seat, and put at the top of the seat's next browser
 * tool result, so the agent learns it without asking.
 */
import { AGENT_EVENTS_MAX } from '../../shared/limits.js';
import type { ProfileBrowser } from './profile.js';

interface Queue { events: string[]; dropped: number }

const queues = new WeakMap<ProfileBrowser, Map<string, Queue>>();

/** Keeps one event (a sentence, no final period) for `seat`'s next tool result. */
export function tellSeat(p: ProfileBrowser, seat: string | null, event: string): void {
  if (!seat) return;
  let bySeat = queues.get(p);
  if (!bySeat) {
    bySeat = new Map();
    queues.set(p, bySeat);
  }
  let q = bySeat.get(seat);
  if (!q) {
    q = { events: [], dropped: 0 };
    bySeat.set(seat, q);
  }
  q.events.push(event);
  if (q.events.length > AGENT_EVENTS_MAX) { q.events.shift(); q.dropped++; }
}

/** The seat's waiting events as one line for the top of a tool result, or '' when nothing happened. */
export function takeEvents(p: ProfileBrowser, seat: string): string {
  const q = queues.get(p)?.get(seat);
  if (!q || q.events.length === 0) return '';
  queues.get(p)!.delete(seat);
  const older = q.dropped ? [`${q.dropped} older event${q.dropped === 1 ? '' : 's'} not shown`] : [];
  return `Events: ${[...older, ...q.events].join('; ')}.`;
}

/** Finished downloads one seat's next result links at most; older ones are still the person's, in the tray. */
export const SEAT_DOWNLOADS_WAITING_MAX = 8;

/** A finished download kept on the server, for the seat's next tool result to link as a file. */
export interface WaitingDownload { name: string; path: string; size: number }

const downloads = new WeakMap<ProfileBrowser, Map<string, WaitingDownload[]>>();

export function downloadForSeat(p: ProfileBrowser, seat: string | null, d: WaitingDownload): void {
  if (!seat) return;
  let bySeat = downloads.get(p);
  if (!bySeat) { bySeat = new Map(); downloads.set(p, bySeat); }
  const list = bySeat.get(seat) ?? [];
  list.push(d);
  while (list.length > SEAT_DOWNLOADS_WAITING_MAX) list.shift();
  bySeat.set(seat, list);
}

export function takeDownloads(p: ProfileBrowser, seat: string): WaitingDownload[] {
  const list = downloads.get(p)?.get(seat) ?? [];
  downloads.get(p)?.delete(seat);
  return list;
}
