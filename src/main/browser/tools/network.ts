/**
 * browser_network_requests lists the seat's tab's requests since its page loaded, numbered;
 * browser_network_request answers one of them in full (headers and bodies) or one part.
 */
import { z } from 'zod';
import type { Request } from 'playwright-core';
import { ForgeError } from '../../../shared/errors.js';
import { header, onTab, type ToolDef } from '../tools.js';
import { recordsOf, NETWORK_REQUESTS_PER_TAB_MAX, type RequestEntry } from '../page-records.js';
import type { Tab } from '../tabs.js';

/** Characters of one body an answer carries: a larger body is cut with its length said. */
export const NETWORK_BODY_MAX_CHARS = 50_000;
/** How long to wait for a response body still arriving, ms. */
const BODY_WAIT_MS = 5_000;
/** Resource types that are the page's furniture: a successful one is listed only with static. */
const STATIC_TYPES = new Set(['image', 'font', 'stylesheet', 'script', 'media', 'manifest', 'texttrack', 'other']);

const PARTS = ['request-headers', 'request-body', 'response-headers', 'response-body'] as const;

function pageRequests(tab: Tab): RequestEntry[] {
  const r = recordsOf(tab);
  return r.requests.filter((e) => e.page === r.page);
}

function statusOf(e: RequestEntry): { line: string; ok: boolean } {
  const failure = e.request.failure();
  if (failure) return { line: `failed: ${failure.errorText}`, ok: false };
  const res = e.response;
  if (!res) return { line: 'pending', ok: true };
  return { line: `${res.status()}${res.statusText() ? ` ${res.statusText()}` : ''}`, ok: res.status() < 400 };
}

function cut(text: string): string {
  return text.length > NETWORK_BODY_MAX_CHARS ? `${text.slice(0, NETWORK_BODY_MAX_CHARS)}\n… (cut at ${NETWORK_BODY_MAX_CHARS} of ${text.length} characters)` : text;
}

async function part(req: Request, which: typeof PARTS[number]): Promise<string> {
  switch (which) {
    case 'request-headers': return Object.entries(await req.allHeaders()).map(([k, v]) => `${k}: ${v}`).join('\n') || '(none)';
    case 'request-body': return req.postData() === null ? '(no body)' : cut(req.postData()!);
    case 'response-headers': {
      const res = await within(req.response());
      return res ? Object.entries(await res.allHeaders()).map(([k, v]) => `${k}: ${v}`).join('\n') || '(none)' : '(no response yet)';
    }
    case 'response-body': {
      const res = await within(req.response());
      if (!res) return '(no response yet)';
      const body = await within(res.body().catch(() => null));
      if (!body) return '(the body is not available: the browser did not keep it, or it is still arriving)';
      const type = (await res.headerValue('content-type').catch(() => null)) ?? '';
      return /^(text\/|application\/(json|javascript|xml|x-www-form-urlencoded)|.*\+json|.*\+xml)/.test(type) || !type
        ? cut(body.toString('utf8'))
        : `(${body.length} bytes of ${type})`;
    }
  }
}

function within<T>(p: Promise<T>): Promise<T | null> {
  return Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), BODY_WAIT_MS))]).catch(() => null);
}

export const NETWORK_TOOLS: ToolDef[] = [
  {
    name: 'browser_network_requests',
    description: 'The numbered requests of your current tab since its page loaded; browser_network_request with a number answers one in full.',
    schema: z.object({
      static: z.boolean().optional().describe('Include successful static resources (images, fonts, scripts, stylesheets); false by default'),
      filter: z.string().optional().describe('Only requests whose URL matches this regular expression'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_network_requests', 'listing requests', async (tab) => {
      let re: RegExp | undefined;
      if (a.filter) {
        try { re = new RegExp(a.filter as string); } catch (e) { throw new ForgeError('bad_request', `the filter ${JSON.stringify(a.filter)} is not a valid regular expression (${(e as Error).message})`); }
      }
      const all = pageRequests(tab);
      const lines = ['### Result'];
      all.forEach((e, i) => {
        const req = e.request;
        const s = statusOf(e);
        if (!a.static && s.ok && STATIC_TYPES.has(req.resourceType()) && !(req.isNavigationRequest())) return;
        if (re && !re.test(req.url())) return;
        lines.push(`${i + 1}. [${req.method()}] ${req.url()} => [${s.line}] (${req.resourceType()})`);
      });
      const shown = lines.length - 1;
      lines.splice(1, 0, `${all.length} request${all.length === 1 ? '' : 's'} since the page loaded; ${shown} shown${a.static ? '' : ' (successful static resources left out; static: true lists them)'}:`);
      const dropped = recordsOf(tab).requestsDropped;
      if (dropped) lines.push(`(${dropped} older request${dropped === 1 ? ' was' : 's were'} dropped: a tab keeps its last ${NETWORK_REQUESTS_PER_TAB_MAX})`);
      lines.push(header(tab));
      return lines.join('\n');
    }),
  },
  {
    name: 'browser_network_request',
    description: 'One request of your current tab in full (headers and bodies), or one part of it, by its number in browser_network_requests.',
    schema: z.object({
      index: z.number().int().min(1).describe('The request\'s number, as browser_network_requests prints it'),
      part: z.enum(PARTS).optional().describe('Only this part of the request'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_network_request', 'reading a request', async (tab) => {
      const all = pageRequests(tab);
      const e = all[(a.index as number) - 1];
      const req = e?.request;
      if (!e || !req) throw new ForgeError('bad_request', `request ${a.index as number} is not in tab ${tab.number}'s list (it has ${all.length} since the page loaded); take browser_network_requests for the numbers`);
      const title = `Request ${a.index as number}: [${req.method()}] ${req.url()} => [${statusOf(e).line}] (${req.resourceType()})`;
      if (a.part) return ['### Result', title, `#### ${a.part as string}`, await part(req, a.part as typeof PARTS[number]), header(tab)].join('\n');
      const lines = ['### Result', title];
      for (const which of PARTS) lines.push(`#### ${which}`, await part(req, which));
      lines.push(header(tab));
      return lines.join('\n');
    }),
  },
];
