/**
 * The client's shell: the socket, the strip, the home under it and the takeover, wired together.
 * Surfaces plug into it: the browser's is built here; the terminal's module is loaded lazily
 * and given the same shell (its strip slot `strip.terminalSlot`, the takeover to raise its
 * surface in, and `surfaceConn()` from connection.ts - this socket in the shape the terminal's
 * door takes).
 */
import { BrowserSurface } from './browser-surface.js';
import { Connection, LINK_WORDS, surfaceConn } from './connection.js';
import { DownloadTray } from './downloads.js';
import { h } from './dom.js';
import { Strip } from './strip.js';
import { HandOffCards } from './handoff-cards.js';
import { HandOffs } from './handoffs.js';
import { ChatDraft } from './draft.js';
import { Tabs } from './tabs.js';
import { Takeover } from './takeover.js';
import { mountTerminalRows } from './terminal/row.js';
import { TerminalSeats } from './terminal/seats.js';
import { Home } from './home.js';
import { Attention, type Waiting } from './attention.js';
import { ActivityLine } from './activity.js';
import { ThumbWatch } from './thumbs.js';

export interface ClientShell {
  conn: Connection;
  strip: Strip;
  takeover: Takeover;
  tabs: Tabs;
  browser: BrowserSurface;
  handoffs: HandOffs;
  /** The seat this page speaks for (`?seat=`), when the link names one. */
  seat: string | null;
}

/** How often a hand-off link's page says its person is still there, ms: well inside the server's 90 s hold. */
const HEARTBEAT_PERIOD_MS = 30_000;

/**
 * `link` true for a hand-off link's page: it shows that one page (no strip, no tab list), opens it
 * at once, and keeps the tab held with heartbeats while it is open.
 */
export function startShell(root: HTMLElement, token: string, seat: string | null, link = false): ClientShell {
  const conn = Connection.forPage(token);
  const tabs = new Tabs(conn, link ? null : seat, !link);
  const takeover = new Takeover();
  const handoffs = new HandOffs(conn);
  const browser = new BrowserSurface(conn, tabs, takeover, seat, handoffs);
  const cards = new HandOffCards(handoffs, browser);
  const draft = new ChatDraft(handoffs);
  const showing = {
    shownPageId: () => browser.shownPageId(),
    show: (pageId: string) => browser.open(pageId),
    hide: () => takeover.lower(),
  };
  const strip = new Strip(tabs, showing);
  const terminals = new TerminalSeats({ conn: surfaceConn(conn, 4), takeover, seat, say: (s) => strip.say(s) });
  const termCards = h('section', { class: 'handoff-cards', 'aria-label': 'terminal hand-offs waiting for you' });
  const attention = new Attention();
  const home = new Home(tabs, terminals, showing, [cards.el, termCards], link ? [draft.el] : [draft.el, new ActivityLine(conn).el, attention.el], link, link ? undefined : new ThumbWatch(conn));
  browser.onChange = () => { strip.refresh(); cards.render(); home.render(); };
  takeover.onChange = () => { strip.refresh(); cards.render(); draft.render(); terminals.refresh(); };
  takeover.focusAfterLower = () => strip.focusTarget();

  // The asks waiting, browser ones first: the title counts them and a new one may notify.
  const waiting = (): void => {
    const asks: Waiting[] = handoffs.asks.map((a) => ({ key: `b:${a.id}`, seat: a.seat, words: a.message, open: () => browser.openAsk(a) }));
    for (const r of terminals.handOffs()) asks.push({ key: `t:${r.term}:${r.handOff!.reason}`, seat: r.seat, words: r.handOff!.reason, open: () => { void terminals.raise(r.seat); } });
    attention.update(asks);
  };
  if (!link) { handoffs.onChange(waiting); terminals.onChange(waiting); }

  const linkState = h('span', { class: 'link-state', role: 'status' });
  conn.onState((s) => { linkState.textContent = s === 'ended' ? conn.endedReason : LINK_WORDS[s]; linkState.dataset.state = s; });
  const chat = home.el;
  const downloads = new DownloadTray(conn);
  root.replaceChildren(h('div', { class: 'shell' }, h('header', { class: 'top' }, link ? null : strip.el, linkState), chat), takeover.el, downloads.el);
  if (link) {
    // The link's page is the hand-off's own: open it as soon as the socket is up.
    let opened = false;
    conn.onState((s) => { if (s === 'open' && !opened) { opened = true; browser.open(); } });
    window.setInterval(() => { if (takeover.up) conn.send({ t: 'heartbeat' }); }, HEARTBEAT_PERIOD_MS);
  }
  if (!link) mountTerminalRows({ conn: surfaceConn(conn, 4), slot: strip.terminalSlot, seats: terminals, cards: termCards });
  conn.start();
  return { conn, strip, takeover, tabs, browser, handoffs, seat };
}
