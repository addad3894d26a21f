/**
 * The main thread's side of the raw CDP door: the relay admits a socket (the agents' key, its
 * seat), and this decides what it reaches — one tab the seat owns (`/cdp/<page id>`) or the
 * seat's filtered browser (`/cdp?seat=`) — and carries its messages to and from the browser.
 */
import type { ProfileBrowser } from './profile.js';
import type { BrowserSurface } from './surface.js';
import { refuseNotYours } from './tabs.js';
import { PageCdpLink } from './cdp-page.js';
import { SeatCdpLink } from './cdp-seat.js';
import type { LinkContext, RawCdpLink } from './cdp-link.js';
import { parseSeat, type Seat } from '../seat.js';
import { log } from '../logging.js';
import { CDP_CLOSE_FORBIDDEN, CDP_CLOSE_GOING_AWAY, CDP_CLOSE_NO_TAB, CDP_CLOSE_TRY_AGAIN, closeReason, type CdpFromRelay, type CdpToRelay } from '../../workers/relay/cdp-protocol.js';

export interface CdpDoorDeps {
  browser: BrowserSurface;
  post(m: CdpToRelay): void;
  /** The seat's profile key, or a refusal when the seat is not this server's org (as MCP has it). */
  profileFor(seat: Seat): string;
}

interface Open { link: RawCdpLink; profile: ProfileBrowser }

export class CdpDoor {
  private open = new Map<number, Open>();

  constructor(private readonly deps: CdpDoorDeps) {
    deps.browser.onChanged((p) => { for (const o of this.of(p)) o.link.changed(); });
    deps.browser.onHostEnded((p, sentence) => { for (const o of this.of(p)) o.link.end(CDP_CLOSE_GOING_AWAY, sentence); });
  }

  private of(p: ProfileBrowser): Open[] { return [...this.open.values()].filter((o) => o.profile === p); }

  dispatch(m: CdpFromRelay): void {
    switch (m.t) {
      case 'cdp_open': this.opened(m.conn, m.seat, m.pageId); break;
      case 'cdp_message': this.open.get(m.conn)?.link.message(m.text); break;
      case 'cdp_closed': {
        const o = this.open.get(m.conn);
        this.open.delete(m.conn);
        o?.link.closed();
        break;
      }
    }
  }

  private close(conn: number, code: number, reason: string): void {
    this.open.delete(conn);
    this.deps.post({ t: 'cdp_close', conn, code, reason: closeReason(reason) });
  }

  private opened(conn: number, seatKey: string, pageId: string | null): void {
    let profile: ProfileBrowser;
    try {
      const seat = parseSeat(seatKey);
      profile = this.deps.browser.profile(this.deps.profileFor(seat));
    } catch (e) {
      this.close(conn, CDP_CLOSE_FORBIDDEN, (e as Error).message);
      return;
    }
    const ctx: LinkContext = {
      conn,
      seat: seatKey,
      profile,
      log: log.child({ seat: seatKey, cdp: conn, profile: profile.key }),
      send: (text) => this.deps.post({ t: 'cdp_send', conn, text }),
      end: (code, reason) => this.close(conn, code, reason),
    };
    if (pageId === null) {
      const link = new SeatCdpLink(ctx);
      this.open.set(conn, { link, profile });
      link.start();
      ctx.log.info({ event: 'cdp_open' }, 'raw CDP: the seat\'s endpoint opened');
      return;
    }
    // Until the host is up its tabs are not known: "try again", never "no such tab".
    if (profile.isStarting) { this.close(conn, CDP_CLOSE_TRY_AGAIN, 'the browser is still starting; connect again in a moment'); return; }
    const tab = profile.tabs.get(pageId);
    if (!tab) { this.close(conn, CDP_CLOSE_NO_TAB, `no tab carries ${pageId}; ${profile.tabs.describeFor(seatKey)}`); return; }
    if (tab.owner !== seatKey) { this.close(conn, CDP_CLOSE_FORBIDDEN, refuseNotYours(tab)); return; }
    const link = new PageCdpLink(ctx, tab);
    this.open.set(conn, { link, profile });
    link.start();
    ctx.log.info({ event: 'cdp_open', pageId, tab: tab.number }, 'raw CDP: a page socket opened');
  }
}
