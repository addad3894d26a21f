/**
 * Who drove what, for people: a viewer sends `activity` and gets the acts its credential covers
 * (the seats it may see), newest last, then every new one as it happens. Agents' calls come in
 * through `recordingServer`; people's acts through `ViewerHub.acted`, which the browser and the
 * terminal call where a role is taken or released and a hand-off answered.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ActivityEvent } from '../../shared/activity.js';
import { seatAllowed, type ViewerGrant } from '../../shared/grants.js';
import type { SessionContext } from '../mcp/context.js';
import type { Surface } from '../surface.js';
import type { ViewerHub } from '../viewers.js';
import { ActivityLog } from './log.js';

/** Acts a viewer gets when it subscribes: enough for the home's list, which shows fewer. */
export const ACTIVITY_SENT_ON_SUBSCRIBE_MAX = 200;

export class ActivitySurface implements Surface {
  readonly name = 'activity';
  readonly log: ActivityLog;
  private readonly subscribers = new Map<number, ViewerGrant>();

  constructor(stateDir: string) {
    this.log = new ActivityLog(stateDir);
  }

  registerTools(_server: McpServer, _ctx: SessionContext): void { /* agents' calls are recorded by the server's wrapper */ }

  attachViewers(hub: ViewerHub): void {
    hub.onActed((ev) => this.log.record(ev));
    hub.on('activity', (v) => {
      this.subscribers.set(v.id, v.grant);
      const events = this.log.recent((ev) => seatAllowed(v.grant, ev.seat)).slice(-ACTIVITY_SENT_ON_SUBSCRIBE_MAX);
      hub.send(v.id, { t: 'activity', events, replace: true });
    });
    hub.onClose((v) => { this.subscribers.delete(v.id); });
    this.log.onRecord((ev: ActivityEvent) => {
      const to = [...this.subscribers].filter(([, g]) => seatAllowed(g, ev.seat)).map(([id]) => id);
      hub.send(to, { t: 'activity', events: [ev] });
    });
  }

  async stop(): Promise<void> { await this.log.close(); }
}
