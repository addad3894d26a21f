/**
 * The network group ([agent] caps = ["network"]): mocked responses, changed request headers and
 * an offline switch. The browser is shared, so each seat's routes and its offline state hold for
 * that seat's own tabs only: a request from another seat's tab passes a seat's routes untouched,
 * and going offline takes only the seat's own tabs off the network.
 */
import { z } from 'zod';
import type { BrowserContext, Route } from 'playwright-core';
import { ForgeError } from '../../../shared/errors.js';
import type { ProfileBrowser } from '../profile.js';
import { onTab } from './on-tab.js';
import { header } from './page-state.js';
import { markSeatOffline, setOffline } from './seat-offline.js';
import type { ToolDef } from './tool-def.js';

/** Routes one seat may hold: each is checked on every request of the profile's browser. */
export const ROUTES_PER_SEAT_MAX = 50;
/** Characters of a mocked body: a mock is a test's small answer, not a site mirrored through a call. */
const ROUTE_BODY_MAX_CHARS = 1_000_000;

interface RouteEntry {
  pattern: string;
  status?: number;
  body?: string;
  contentType?: string;
  addHeaders?: Record<string, string>;
  removeHeaders?: string[];
  handler: (route: Route) => Promise<void>;
}

/** Each host's routes by seat: a new host (after a restart) starts with none, as its context is new. */
const routesOf = new WeakMap<BrowserContext, Map<string, RouteEntry[]>>();

function seatRoutes(ctx: BrowserContext, seat: string): RouteEntry[] {
  let bySeat = routesOf.get(ctx);
  if (!bySeat) { bySeat = new Map(); routesOf.set(ctx, bySeat); }
  let list = bySeat.get(seat);
  if (!list) { list = []; bySeat.set(seat, list); }
  return list;
}

/** Whether the request comes from one of the seat's tabs (a service worker's belongs to no tab). */
function fromSeat(p: ProfileBrowser, seat: string, route: Route): boolean {
  try {
    const page = route.request().frame().page();
    return p.tabs.byPage(page)?.owner === seat;
  } catch {
    return false;
  }
}

function describe(r: RouteEntry, i: number): string {
  const d: string[] = [];
  if (r.status !== undefined) d.push(`status=${r.status}`);
  if (r.body !== undefined) d.push(`body=${r.body.length > 50 ? `${r.body.slice(0, 50)}…` : r.body}`);
  if (r.contentType) d.push(`contentType=${r.contentType}`);
  if (r.addHeaders) d.push(`addHeaders=${JSON.stringify(r.addHeaders)}`);
  if (r.removeHeaders) d.push(`removeHeaders=${r.removeHeaders.join(',')}`);
  return `${i + 1}. ${r.pattern}${d.length ? ` (${d.join(', ')})` : ''}`;
}

export const ROUTE_TOOLS: ToolDef[] = [
  {
    name: 'browser_route',
    cap: 'network',
    description: 'Mock the responses to requests of your tabs whose URL matches a pattern (with status or body), or change their request headers. Only your own tabs\' requests are touched.',
    schema: z.object({
      pattern: z.string().min(1).describe('URL glob, such as **/api/users or **/*.{png,jpg}'),
      status: z.number().int().min(100).max(599).optional().describe('Status of the mocked response, 200 by default'),
      body: z.string().max(ROUTE_BODY_MAX_CHARS).optional().describe('Body of the mocked response'),
      contentType: z.string().optional().describe('Content-Type of the mocked response'),
      headers: z.array(z.string()).optional().describe('Request headers to add, as "Name: Value"'),
      removeHeaders: z.string().optional().describe('Request header names to remove, comma-separated'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_route', 'adding a route', async (tab) => {
      const seat = ctx.seat.key;
      const context = p.driver!.context;
      const list = seatRoutes(context, seat);
      if (list.length >= ROUTES_PER_SEAT_MAX) throw new ForgeError('bad_request', `you hold ${list.length} routes, the most a seat may; remove some with browser_unroute`);
      const addHeaders = a.headers ? Object.fromEntries((a.headers as string[]).map((h) => {
        const at = h.indexOf(':');
        if (at <= 0) throw new ForgeError('bad_request', `the header ${JSON.stringify(h)} is not "Name: Value"`);
        return [h.slice(0, at).trim().toLowerCase(), h.slice(at + 1).trim()];
      })) : undefined;
      const removeHeaders = a.removeHeaders ? (a.removeHeaders as string).split(',').map((h) => h.trim().toLowerCase()).filter(Boolean) : undefined;
      const mocks = a.body !== undefined || a.status !== undefined;
      const entry: RouteEntry = {
        pattern: a.pattern as string, status: a.status as number | undefined, body: a.body as string | undefined,
        contentType: a.contentType as string | undefined, addHeaders, removeHeaders,
        handler: async (route) => {
          if (!fromSeat(p, seat, route)) { await route.fallback(); return; }
          if (mocks) { await route.fulfill({ status: entry.status ?? 200, contentType: entry.contentType, body: entry.body ?? '' }); return; }
          const h = { ...route.request().headers(), ...(addHeaders ?? {}) };
          for (const name of removeHeaders ?? []) delete h[name];
          await route.fallback({ headers: h });
        },
      };
      await context.route(entry.pattern, entry.handler);
      list.push(entry);
      return ['### Result', `Route added for ${entry.pattern} on your tabs (${list.length} held):`, describe(entry, list.length - 1), header(tab)].join('\n');
    }),
  },
  {
    name: 'browser_route_list',
    cap: 'network',
    description: 'List the routes you hold.',
    schema: z.object({}).strict(),
    run: (_a, ctx, p) => onTab(p, ctx, 'browser_route_list', 'listing routes', async (tab) => {
      const list = seatRoutes(p.driver!.context, ctx.seat.key);
      return ['### Result', list.length ? list.map(describe).join('\n') : 'You hold no routes.', header(tab)].join('\n');
    }),
  },
  {
    name: 'browser_unroute',
    cap: 'network',
    description: 'Remove your routes of a pattern, or all your routes when no pattern is given.',
    schema: z.object({ pattern: z.string().optional().describe('The pattern as browser_route was given it; all your routes without it') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_unroute', 'removing routes', async (tab) => {
      const context = p.driver!.context;
      const list = seatRoutes(context, ctx.seat.key);
      const gone = list.filter((r) => a.pattern === undefined || r.pattern === a.pattern);
      for (const r of gone) {
        await context.unroute(r.pattern, r.handler);
        list.splice(list.indexOf(r), 1);
      }
      return ['### Result', `Removed ${gone.length} route${gone.length === 1 ? '' : 's'}${a.pattern !== undefined ? ` for ${a.pattern as string}` : ''}; ${list.length} left.`, header(tab)].join('\n');
    }),
  },
  {
    name: 'browser_network_state_set',
    cap: 'network',
    description: 'Take your tabs offline (every request of theirs fails) or back online. Other seats\' tabs stay as they are.',
    schema: z.object({ state: z.enum(['online', 'offline']).describe('offline: your tabs\' requests fail; online: they reach the network again') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_network_state_set', 'setting the network state', async (tab) => {
      const seat = ctx.seat.key;
      const offline = a.state === 'offline';
      markSeatOffline(p.driver!.context, seat, offline);
      const mine = p.tabs.ownedBy(seat).filter((t) => !t.unloaded);
      for (const t of mine) await setOffline(p, t, offline);
      return ['### Result', `Your ${mine.length} tab${mine.length === 1 ? ' is' : 's are'} ${a.state as string}${offline ? ', and tabs you open stay offline until you set online' : ''}.`, header(tab)].join('\n');
    }),
  },
];
