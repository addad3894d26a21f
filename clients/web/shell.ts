/**
 * The client's shell: the socket, the strip, the chat area and the takeover, wired together.
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
import { mountTerminalRow } from './terminal/row.js';

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
  const strip = new Strip(tabs, {
    shownPageId: () => browser.shownPageId(),
    show: (pageId) => browser.open(pageId),
    hide: () => takeover.lower(),
  });
  browser.onChange = () => { strip.refresh(); cards.render(); };
  takeover.onChange = () => { strip.refresh(); cards.render(); draft.render(); };
  takeover.focusAfterLower = () => strip.focusTarget();

  const linkState = h('span', { class: 'link-state', role: 'status' });
  conn.onState((s) => { linkState.textContent = s === 'ended' ? conn.endedReason : LINK_WORDS[s]; linkState.dataset.state = s; });
  const termCards = h('section', { class: 'handoff-cards', 'aria-label': 'terminal hand-offs waiting for you' });
  const chat = h('main', { class: 'chat', id: 'chat', 'aria-label': 'chat' },
    h('h1', { class: 'chat-title' }, 'forge'),
    cards.el,
    termCards,
    h('p', { class: 'chat-empty' }, 'The conversation appears here. The strip above opens what the agents are driving.'),
    draft.el);
  const downloads = new DownloadTray(conn);
  root.replaceChildren(h('div', { class: 'shell' }, h('header', { class: 'top' }, link ? null : strip.el, linkState), chat), takeover.el, downloads.el);
  if (link) {
    // The link's page is the hand-off's own: open it as soon as the socket is up.
    let opened = false;
    conn.onState((s) => { if (s === 'open' && !opened) { opened = true; browser.open(); } });
    window.setInterval(() => { if (takeover.up) conn.send({ t: 'heartbeat' }); }, HEARTBEAT_PERIOD_MS);
  }
  if (!link) mountTerminalRow({ conn: surfaceConn(conn, 4), slot: strip.terminalSlot, takeover, seat, say: (s) => strip.say(s), cards: termCards });
  conn.start();
  return { conn, strip, takeover, tabs, browser, handoffs, seat };
}
