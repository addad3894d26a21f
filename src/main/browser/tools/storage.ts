/**
 * The storage group ([agent] caps = ["storage"]): cookies, localStorage, sessionStorage and the
 * storage state of the profile. Cookies and localStorage belong to the org's browser profile, not
 * to one seat: a login set or cleared here is set or cleared for every seat on the profile, and
 * each tool says so. localStorage and sessionStorage are read and written in the seat's current
 * tab, for its page's origin.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { BrowserAnswer, ToolDef } from './tool-def.js';
import type { ProfileBrowser } from '../profile.js';
import type { SessionContext } from '../../mcp/context.js';
import type { Tab } from '../tabs.js';

/** Characters of one value an answer shows: a longer one is cut with its length said. */
const VALUE_MAX_CHARS = 2_000;
/** Entries one list answers: a site with more is cut with the count said. */
const LIST_MAX_ENTRIES = 200;

const SHARED = 'Cookies belong to this org\'s browser profile, so logins are shared by every seat on it.';

function shown(v: string): string {
  return v.length > VALUE_MAX_CHARS ? `${v.slice(0, VALUE_MAX_CHARS)}… (${v.length} characters)` : v;
}

function listed(rows: string[], none: string): string {
  if (!rows.length) return none;
  const more = rows.length > LIST_MAX_ENTRIES ? [`… and ${rows.length - LIST_MAX_ENTRIES} more`] : [];
  return [...rows.slice(0, LIST_MAX_ENTRIES), ...more].join('\n');
}

/** A context-wide call, still run on the seat's tab so a held dialog refuses it and the host is up. */
function onProfile(p: ProfileBrowser, ctx: SessionContext, tool: string, what: string, work: (tab: Tab) => Promise<string>): Promise<BrowserAnswer> {
  return onTab(p, ctx, tool, what, async (tab) => `### Result\n${await work(tab)}\n${header(tab)}`);
}

const context = (p: ProfileBrowser) => p.driver!.context;

const COOKIE_TOOLS: ToolDef[] = [
  {
    name: 'browser_cookie_list',
    cap: 'storage',
    description: `List the profile's cookies, optionally for one domain or path. ${SHARED}`,
    schema: z.object({ domain: z.string().optional().describe('Only cookies whose domain contains this'), path: z.string().optional().describe('Only cookies whose path starts with this') }).strict(),
    run: (a, ctx, p) => onProfile(p, ctx, 'browser_cookie_list', 'listing cookies', async () => {
      let cookies = await context(p).cookies();
      if (a.domain) cookies = cookies.filter((c) => c.domain.includes(a.domain as string));
      if (a.path) cookies = cookies.filter((c) => c.path.startsWith(a.path as string));
      return listed(cookies.map((c) => `${c.name}=${shown(c.value)} (domain: ${c.domain}, path: ${c.path})`), 'No cookies found.');
    }),
  },
  {
    name: 'browser_cookie_get',
    cap: 'storage',
    description: `One of the profile's cookies by name, with its flags. ${SHARED}`,
    schema: z.object({ name: z.string().describe('The cookie\'s name') }).strict(),
    run: (a, ctx, p) => onProfile(p, ctx, 'browser_cookie_get', 'reading a cookie', async () => {
      const found = (await context(p).cookies()).filter((c) => c.name === a.name);
      if (!found.length) return `No cookie is named ${JSON.stringify(a.name)}.`;
      return found.map((c) => `${c.name}=${shown(c.value)} (domain: ${c.domain}, path: ${c.path}, expires: ${c.expires < 0 ? 'session' : new Date(c.expires * 1000).toISOString()}, httpOnly: ${c.httpOnly}, secure: ${c.secure}, sameSite: ${c.sameSite})`).join('\n');
    }),
  },
  {
    name: 'browser_cookie_set',
    cap: 'storage',
    description: `Set a cookie on the profile (its domain is your current tab's unless given). ${SHARED}`,
    schema: z.object({
      name: z.string().describe('Cookie name'), value: z.string().describe('Cookie value'),
      domain: z.string().optional().describe('Cookie domain; your current tab\'s host by default'),
      path: z.string().optional().describe('Cookie path; / by default'),
      expires: z.number().optional().describe('Expiry as Unix time in seconds; a session cookie without it'),
      httpOnly: z.boolean().optional(), secure: z.boolean().optional(),
      sameSite: z.enum(['Strict', 'Lax', 'None']).optional(),
    }).strict(),
    run: (a, ctx, p) => onProfile(p, ctx, 'browser_cookie_set', 'setting a cookie', async (tab) => {
      let domain = a.domain as string | undefined;
      if (!domain) {
        try { domain = new URL(tab.page.url()).hostname; } catch { /* below */ }
        if (!domain) throw new ForgeError('bad_request', `tab ${tab.number} shows ${tab.page.url()}, which has no host to set a cookie for; give domain`);
      }
      const flags = Object.fromEntries(['expires', 'httpOnly', 'secure', 'sameSite'].filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
      await context(p).addCookies([{ name: a.name as string, value: a.value as string, domain, path: (a.path as string | undefined) ?? '/', ...flags }]);
      return `Set cookie ${a.name as string} for ${domain}, for every seat on this profile.`;
    }),
  },
  {
    name: 'browser_cookie_delete',
    cap: 'storage',
    description: `Delete the profile's cookies of this name. ${SHARED}`,
    schema: z.object({ name: z.string().describe('The cookie\'s name') }).strict(),
    run: (a, ctx, p) => onProfile(p, ctx, 'browser_cookie_delete', 'deleting a cookie', async () => {
      await context(p).clearCookies({ name: a.name as string });
      return `Deleted the cookies named ${JSON.stringify(a.name)}, for every seat on this profile.`;
    }),
  },
  {
    name: 'browser_cookie_clear',
    cap: 'storage',
    description: `Clear every cookie of the profile: every seat on it is logged out. ${SHARED}`,
    schema: z.object({}).strict(),
    run: (_a, ctx, p) => onProfile(p, ctx, 'browser_cookie_clear', 'clearing cookies', async () => {
      const n = (await context(p).cookies()).length;
      await context(p).clearCookies();
      return `Cleared ${n} cookie${n === 1 ? '' : 's'}, for every seat on this profile.`;
    }),
  },
];

/** The five tools of one Web Storage area, on the seat's current tab's origin. */
function webStorageTools(area: 'localStorage' | 'sessionStorage'): ToolDef[] {
  const prefix = `browser_${area.toLowerCase()}`;
  const scope = area === 'localStorage' ? 'its origin\'s localStorage, shared by every tab of that origin on this profile' : 'its own sessionStorage';
  const on = (tab: Tab): string => `${area} of ${new URL(tab.page.url()).origin}`;
  const key = z.object({ key: z.string().describe('The key') }).strict();
  const ev = <T>(tab: Tab, fn: string, arg?: unknown): Promise<T> => tab.page.evaluate(new Function('arg', `return (${fn})(arg)`) as (a: unknown) => T, arg);
  return [
    {
      name: `${prefix}_list`, cap: 'storage',
      description: `List the ${area} entries of your current tab's page (${scope}).`,
      schema: z.object({}).strict(),
      run: (_a, ctx, p) => onProfile(p, ctx, `${prefix}_list`, `listing ${area}`, async (tab) => {
        const items = await ev<Array<[string, string]>>(tab, `() => Object.keys(${area}).map((k) => [k, ${area}.getItem(k) ?? ''])`);
        return `${on(tab)}:\n${listed(items.map(([k, v]) => `${k}=${shown(v)}`), '(empty)')}`;
      }),
    },
    {
      name: `${prefix}_get`, cap: 'storage',
      description: `One ${area} entry of your current tab's page by key.`,
      schema: key,
      run: (a, ctx, p) => onProfile(p, ctx, `${prefix}_get`, `reading ${area}`, async (tab) => {
        const v = await ev<string | null>(tab, `(k) => ${area}.getItem(k)`, a.key);
        return v === null ? `${on(tab)} has no key ${JSON.stringify(a.key)}.` : `${a.key as string}=${shown(v)}`;
      }),
    },
    {
      name: `${prefix}_set`, cap: 'storage',
      description: `Set a ${area} entry of your current tab's page (${scope}).`,
      schema: z.object({ key: z.string().describe('The key'), value: z.string().describe('The value') }).strict(),
      run: (a, ctx, p) => onProfile(p, ctx, `${prefix}_set`, `writing ${area}`, async (tab) => {
        await ev(tab, `([k, v]) => ${area}.setItem(k, v)`, [a.key, a.value]);
        return `Set ${a.key as string} in the ${on(tab)}.`;
      }),
    },
    {
      name: `${prefix}_delete`, cap: 'storage',
      description: `Delete a ${area} entry of your current tab's page.`,
      schema: key,
      run: (a, ctx, p) => onProfile(p, ctx, `${prefix}_delete`, `deleting from ${area}`, async (tab) => {
        await ev(tab, `(k) => ${area}.removeItem(k)`, a.key);
        return `Deleted ${a.key as string} from the ${on(tab)}.`;
      }),
    },
    {
      name: `${prefix}_clear`, cap: 'storage',
      description: `Clear the ${area} of your current tab's page (${scope}).`,
      schema: z.object({}).strict(),
      run: (_a, ctx, p) => onProfile(p, ctx, `${prefix}_clear`, `clearing ${area}`, async (tab) => {
        await ev(tab, `() => ${area}.clear()`);
        return `Cleared the ${on(tab)}.`;
      }),
    },
  ];
}

const STATE_TOOLS: ToolDef[] = [
  {
    name: 'browser_storage_state',
    cap: 'storage',
    description: `The profile's storage state (cookies and localStorage), answered as a JSON file you read with resources/read and can give back to browser_set_storage_state. ${SHARED}`,
    schema: z.object({ filename: z.string().optional().describe('A name for the file; nothing is saved on the server') }).strict(),
    run: async (a, ctx, p) => {
      let json = '';
      const r = await onProfile(p, ctx, 'browser_storage_state', 'reading the storage state', async () => {
        const state = await context(p).storageState();
        json = JSON.stringify(state, null, 2);
        return `The storage state: ${state.cookies.length} cookies, localStorage of ${state.origins.length} origins; ${json.length} characters, linked below.`;
      });
      const name = (a.filename as string | undefined) ?? `storage-state-${Date.now()}.json`;
      return json ? { ...r, files: [{ name, mimeType: 'application/json', data: Buffer.from(json), description: 'Storage state: cookies and localStorage' }] } : r;
    },
  },
  {
    name: 'browser_set_storage_state',
    cap: 'storage',
    description: `Replace the profile's cookies and localStorage with a storage state (the JSON browser_storage_state answers). Every seat on the profile gets it: their logins change. ${SHARED}`,
    schema: z.object({
      state: z.string().optional().describe('The storage state\'s JSON text'),
      filename: z.string().optional().describe('Not read: forge does not open the server\'s files for an agent; pass state'),
    }).strict(),
    run: (a, ctx, p) => onProfile(p, ctx, 'browser_set_storage_state', 'restoring the storage state', async () => {
      if (a.state === undefined) {
        throw new ForgeError('bad_request', a.filename !== undefined
          ? `forge does not read the server's files for an agent, so ${a.filename as string} was not opened; pass the file's JSON text as state`
          : 'give state: the JSON text of a storage state, as browser_storage_state answers it');
      }
      let state: Exclude<Parameters<ReturnType<typeof context>['setStorageState']>[0], string>;
      try { state = JSON.parse(a.state as string); } catch (e) { throw new ForgeError('bad_request', `state is not JSON (${(e as Error).message})`); }
      if (!state || !Array.isArray(state.cookies) || !Array.isArray(state.origins)) throw new ForgeError('bad_request', 'state needs cookies and origins lists, as browser_storage_state answers it');
      await context(p).setStorageState(state);
      return `Restored ${state.cookies.length} cookies and the localStorage of ${state.origins.length} origins, for every seat on this profile.`;
    }),
  },
];

export const STORAGE_TOOLS: ToolDef[] = [...COOKIE_TOOLS, ...webStorageTools('localStorage'), ...webStorageTools('sessionStorage'), ...STATE_TOOLS];
