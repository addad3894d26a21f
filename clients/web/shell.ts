/**
 * The client's shell: the socket, the strip, the chat area and the takeover, wired together.
 * Surfaces plug into it: the browser's is built here; the terminal's module is loaded lazily
 * and given the same shell (its strip slot, the takeover to raise its surface in, the socket).
 */
import { BrowserSurface } from './browser-surface.js';
import { Connection, type LinkState } from './connection.js';
import { h } from './dom.js';
import { Strip } from './strip.js';
import { Tabs } from './tabs.js';
import { Takeover } from './takeover.js';

export interface ClientShell {
  conn: Connection;
  strip: Strip;
  takeover: Takeover;
  tabs: Tabs;
  browser: BrowserSurface;
  /** The seat this page speaks for (`?seat=`), when the link names one. */
  seat: string | null;
}

const LINK_WORDS: Record<LinkState, string> = {
  connecting: 'connecting…',
  open: 'connected',
  down: 'the connection is down - reconnecting…',
};

export function startShell(root: HTMLElement, token: string, seat: string | null): ClientShell {
  const conn = Connection.forPage(token);
  const tabs = new Tabs(conn, seat);
  const takeover = new Takeover();
  const browser = new BrowserSurface(conn, tabs, takeover, seat);
  const strip = new Strip(tabs, {
    shownPageId: () => browser.shownPageId(),
    show: (pageId) => browser.open(pageId),
    hide: () => takeover.lower(),
  });
  browser.onChange = () => strip.refresh();
  takeover.onChange = () => strip.refresh();
  takeover.focusAfterLower = () => strip.focusTarget();

  const link = h('span', { class: 'link-state', role: 'status' });
  conn.onState((s) => { link.textContent = LINK_WORDS[s]; link.dataset.state = s; });
  const chat = h('main', { class: 'chat', id: 'chat', 'aria-label': 'chat' },
    h('h1', { class: 'chat-title' }, 'forge'),
    h('p', { class: 'chat-empty' }, 'The conversation appears here. The strip above opens what the agents are driving.'));
  root.replaceChildren(h('div', { class: 'shell' }, h('header', { class: 'top' }, strip.el, link), chat), takeover.el);
  conn.start();
  return { conn, strip, takeover, tabs, browser, seat };
}
