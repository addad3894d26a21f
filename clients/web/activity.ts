/**
 * Who drove what, on the home: an activity line per act — each agent tool call (tool, its target
 * in words, outcome, duration) and each person's act (took control, released, answered a
 * hand-off and how) — live, newest first, at most ACTIVITY_SHOWN_MAX, filterable by seat. The
 * list is asked for on every (re)connect, so a person who was away sees what happened meanwhile.
 */
import type { ActivityEvent } from '../../src/shared/activity.js';
import type { Connection } from './connection.js';
import { h } from './dom.js';
import { seatNames } from './terminal/words.js';

/** Lines the home shows: enough for the last stretch of work, few enough to read in ten seconds. */
export const ACTIVITY_SHOWN_MAX = 100;
/** The filter's value for every seat. */
const ALL_SEATS = '';

function clock(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export class ActivityLine {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly filter: HTMLSelectElement;
  private readonly empty: HTMLElement;
  private events: ActivityEvent[] = [];

  constructor(conn: Connection) {
    this.filter = h('select', { class: 'activity-filter', 'aria-label': 'show the activity of', onchange: () => this.render() });
    this.list = h('ol', { class: 'activity-list', 'aria-label': 'activity, newest first', 'aria-live': 'polite' });
    this.empty = h('p', { class: 'activity-empty' }, 'Nothing has happened yet: each agent call and each person\'s act shows here as it happens.');
    this.el = h('section', { class: 'activity', 'aria-label': 'who drove what' },
      h('div', { class: 'activity-head' }, h('h2', { class: 'card-title' }, 'What happened'), this.filter),
      this.empty, this.list);
    conn.onState((s) => { if (s === 'open') conn.send({ t: 'activity' }); });
    conn.onMessage((m) => {
      if (m.t !== 'activity') return;
      this.events = m.replace ? [...m.events] : [...this.events, ...m.events];
      if (this.events.length > ACTIVITY_SHOWN_MAX * 2) this.events.splice(0, this.events.length - ACTIVITY_SHOWN_MAX * 2);
      this.render();
    });
    this.render();
  }

  private render(): void {
    const seats = [...new Set(this.events.map((e) => e.seat))].sort();
    const chosen = this.filter.value;
    const options = [ALL_SEATS, ...seats];
    if (this.filter.options.length !== options.length || options.some((o, i) => this.filter.options[i]!.value !== o)) {
      this.filter.replaceChildren(...options.map((s) => h('option', { value: s }, s === ALL_SEATS ? 'every seat' : s)));
      this.filter.value = options.includes(chosen) ? chosen : ALL_SEATS;
    }
    const shown = this.events.filter((e) => this.filter.value === ALL_SEATS || e.seat === this.filter.value).slice(-ACTIVITY_SHOWN_MAX).reverse();
    const names = seatNames(seats);
    this.list.replaceChildren(...shown.map((e) => this.line(e, names(e.seat))));
    this.empty.hidden = shown.length > 0;
    this.filter.hidden = seats.length < 2;
  }

  private line(e: ActivityEvent, seatName: string): HTMLElement {
    // A token's name is the person's; the server's own printed link is named in brackets already.
    const who = e.by === 'agent' ? 'agent' : !e.who ? 'person' : e.who.startsWith('(') ? `person ${e.who}` : `person (${e.who})`;
    return h('li', { class: 'activity-item', 'data-seat': e.seat, 'data-by': e.by, 'data-outcome': e.outcome },
      h('time', { class: 'activity-time', datetime: new Date(e.at).toISOString() }, clock(e.at)),
      h('span', { class: 'activity-seat', title: e.seat }, seatName),
      h('span', { class: 'activity-who' }, who),
      h('span', { class: 'activity-what' }, e.what),
      e.target ? h('span', { class: 'activity-target' }, e.target) : null,
      h('span', { class: 'activity-outcome' }, e.outcome === 'ok' ? (e.detail ?? 'ok') : `failed: ${e.detail ?? 'an error'}`),
      e.ms !== undefined ? h('span', { class: 'activity-ms' }, duration(e.ms)) : null);
  }
}
