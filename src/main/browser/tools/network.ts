/**
 * browser_network_requests lists the seat's tab's requests since its page loaded, numbered;
 * browser_network_request answers one of them in full (headers and bodies) or one part.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { ToolDef } from './tool-def.js';
import { answerOrFile, filenameArg } from './to-file.js';
import { recordsOf, NETWORK_REQUESTS_PER_TAB_MAX, type PageRecords, type RequestEntry } from '../page-records.js';
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
  if (e.failure) return { line: `failed: ${e.failure}`, ok: false };
  const res = e.response;
  if (!res || res.status === 0) return { line: 'pending', ok: true };
  return { line: `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, ok: res.status < 400 };
}

function cut(text: string, whole = text.length): string {
  return text.length > NETWORK_BODY_MAX_CHARS || whole > text.length
    ? `${text.slice(0, NETWORK_BODY_MAX_CHARS)}\n… (cut at ${Math.min(text.length, NETWORK_BODY_MAX_CHARS)} of ${whole} characters)`
    : text;
}

const headerLines = (h: Record<string, string>): string => Object.entries(h).map(([k, v]) => `${k}: ${v}`).join('\n') || '(none)';

/** Until the body has arrived whole, at most BODY_WAIT_MS: whether it did. */
async function arrived(e: RequestEntry): Promise<boolean> {
  const end = Date.now() + BODY_WAIT_MS;
  while (!e.done && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return e.done;
}

async function part(r: PageRecords, e: RequestEntry, which: typeof PARTS[number]): Promise<string> {
  switch (which) {
    case 'request-headers': return headerLines(e.requestHeaders);
    case 'request-body': return e.postData === undefined ? '(no body)' : cut(e.postData, e.postDataLength);
    case 'response-headers': return e.response ? headerLines(e.response.headers) : '(no response yet)';
    case 'response-body': {
      if (!e.response) return '(no response yet)';
      if (e.redirected) return `(a redirect: the body is the next request's)`;
      if (!(await arrived(e)) || e.failure || !r.session) return '(the body is not available: the browser did not keep it, or it is still arriving)';
      const got = await r.session.send('Network.getResponseBody', { requestId: e.id }).catch(() => null) as { body: string; base64Encoded: boolean } | null;
      if (!got) return '(the body is not available: the browser did not keep it, or it is still arriving)';
      const type = e.response.headers['content-type'] ?? e.response.mimeType ?? '';
      const text = /^(text\/|application\/(json|javascript|xml|x-www-form-urlencoded)|.*\+json|.*\+xml)/.test(type) || !type;
      if (!text) return `(${got.base64Encoded ? Buffer.from(got.body, 'base64').length : Buffer.byteLength(got.body)} bytes of ${type})`;
      return cut(got.base64Encoded ? Buffer.from(got.body, 'base64').toString('utf8') : got.body);
    }
  }
}

export const NETWORK_TOOLS: ToolDef[] = [
  {
    name: 'browser_network_requests',
    description: 'The numbered requests of your current tab since its page loaded; browser_network_request with a number answers one in full.',
    schema: z.object({
      static: z.boolean().optional().describe('Include successful static resources (images, fonts, scripts, stylesheets); false by default'),
      filter: z.string().optional().describe('Only requests whose URL matches this regular expression'),
      filename: filenameArg,
    }).strict(),
    run: (a, ctx, p) => answerOrFile(a.filename, (keep) => onTab(p, ctx, 'browser_network_requests', 'listing requests', async (tab) => {
      let re: RegExp | undefined;
      if (a.filter) {
        try { re = new RegExp(a.filter as string); } catch (e) { throw new ForgeError('bad_request', `the filter ${JSON.stringify(a.filter)} is not a valid regular expression (${(e as Error).message})`); }
      }
      const all = pageRequests(tab);
      const lines = ['### Result'];
      all.forEach((e, i) => {
        const s = statusOf(e);
        if (!a.static && s.ok && STATIC_TYPES.has(e.type) && !e.navigation) return;
        if (re && !re.test(e.url)) return;
        lines.push(`${i + 1}. [${e.method}] ${e.url} => [${s.line}] (${e.type})`);
      });
      const shown = lines.length - 1;
      lines.splice(1, 0, `${all.length} request${all.length === 1 ? '' : 's'} since the page loaded; ${shown} shown${a.static ? '' : ' (successful static resources left out; static: true lists them)'}${shown ? ':' : '.'}`);
      const dropped = recordsOf(tab).requestsDropped;
      if (dropped) lines.push(`(${dropped} older request${dropped === 1 ? ' was' : 's were'} dropped: a tab keeps its last ${NETWORK_REQUESTS_PER_TAB_MAX})`);
      lines.push(header(tab));
      return keep(tab, 'Requests', lines.join('\n'));
    })),
  },
  {
    name: 'browser_network_request',
    description: 'One request of your current tab in full (headers and bodies), or one part of it, by its number in browser_network_requests.',
    schema: z.object({
      index: z.number().int().min(1).describe('The request\'s number, as browser_network_requests prints it'),
      part: z.enum(PARTS).optional().describe('Only this part of the request'),
      filename: filenameArg,
    }).strict(),
    run: (a, ctx, p) => answerOrFile(a.filename, (keep) => onTab(p, ctx, 'browser_network_request', 'reading a request', async (tab) => {
      const all = pageRequests(tab);
      const e = all[(a.index as number) - 1];
      if (!e) throw new ForgeError('bad_request', `request ${a.index as number} is not in tab ${tab.number}'s list (it has ${all.length} since the page loaded); take browser_network_requests for the numbers`);
      const title = `Request ${a.index as number}: [${e.method}] ${e.url} => [${statusOf(e).line}] (${e.type})`;
      const r = recordsOf(tab);
      const what = `Request ${a.index as number}`;
      if (a.part) return keep(tab, what, ['### Result', title, `#### ${a.part as string}`, await part(r, e, a.part as typeof PARTS[number]), header(tab)].join('\n'));
      const lines = ['### Result', title];
      for (const which of PARTS) lines.push(`#### ${which}`, await part(r, e, which));
      lines.push(header(tab));
      return keep(tab, what, lines.join('\n'));
    })),
  },
];
