/**
 * What the shared browser opens for an agent. Every viewer sees its tabs, and the browser reads
 * the server's disk and its own DevTools endpoint: file: URLs are refused unless forge.toml
 * allows them, the browser's own pages (chrome:, devtools:, view-source: …) always, and so is
 * the host's CDP port, forge's alone. Agent paths refuse in words before anything loads; the
 * driver's request rule (`blockedRequestPatterns`) stops a page reaching the same by itself.
 */
import { ForgeError } from '../../shared/errors.js';
import { SOUND_EXTENSION_ID } from './host/sound-extension.js';

export interface UrlPolicy {
  /** `[agent] allow_file_urls` in forge.toml. */
  allowFileUrls: boolean;
  /** The host's DevTools port: nothing but forge may reach it. */
  cdpPort: number;
}

/** Schemes of the browser's own pages and tools: a settings page or an inspector is no agent's and no viewer's to see. */
const BROWSER_SCHEMES = ['chrome:', 'chrome-untrusted:', 'chrome-extension:', 'chrome-search:', 'devtools:', 'view-source:'];

/** Ports a scheme uses when its URL names none. */
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

export const FILE_URL_REFUSAL = 'forge does not open file: URLs; set [agent] allow_file_urls = true in forge.toml to allow them';

/** The sentence refusing `raw`, or undefined when the shared browser may open it. */
export function urlRefusal(raw: string, policy: UrlPolicy): string | undefined {
  let url: URL;
  try { url = new URL(raw.trim()); } catch { return undefined; } // not a URL: the navigation itself says so
  const scheme = url.protocol.toLowerCase();
  if (scheme === 'file:') return policy.allowFileUrls ? undefined : FILE_URL_REFUSAL;
  // Not an address: Chromium runs it in whatever page the tab shows, and the navigation fails.
  if (scheme === 'javascript:') return 'forge does not open javascript: URLs: they are scripts, not addresses; run a script on the page with browser_evaluate';
  if (BROWSER_SCHEMES.includes(scheme)) return `forge does not open ${scheme} URLs: the browser's own pages and tools are not opened in the shared browser`;
  // about:blank is a blank page; other about: names are the browser's own pages (about:settings is chrome://settings).
  if (scheme === 'about:' && url.pathname !== 'blank') return `forge does not open ${url.href}: of about: pages only about:blank is opened in the shared browser`;
  if (policy.cdpPort > 0 && effectivePort(url) === policy.cdpPort) return cdpRefusal(policy.cdpPort);
  return undefined;
}

/**
 * The refusal as an error, for a tool about to open `raw`. Checked by port whatever the host
 * name: many names reach the loopback (localhost, 127.1, 0.0.0.0, a DNS name).
 */
export function refuseUrl(raw: string, policy: UrlPolicy): void {
  const why = urlRefusal(raw, policy);
  if (why) throw new ForgeError('url_refused', why);
}

function cdpRefusal(port: number): string {
  return `forge does not open the browser host's own DevTools endpoint (port ${port}): it is forge's alone`;
}

function effectivePort(url: URL): number | undefined {
  if (url.port) return Number(url.port);
  return DEFAULT_PORTS[url.protocol];
}

/**
 * CDP Fetch patterns (browser-wide) for the requests no page may make by itself: the host's
 * DevTools port under any name, the browser's own pages, and file: unless allowed. A match is
 * checked again with `urlRefusal`, since a pattern's `*` also spans a path that holds `:port/`.
 */
export function blockedRequestPatterns(policy: UrlPolicy): Array<{ urlPattern: string }> {
  const patterns = [`*:${policy.cdpPort}/*`, ...BROWSER_SCHEMES.map((s) => `${s}*`)];
  if (!policy.allowFileUrls) patterns.push('file:*');
  return patterns.map((urlPattern) => ({ urlPattern }));
}

/** forge's own sound extension's files: its capturing page loads them; no page can (none is web-accessible). */
const OWN_EXTENSION_ORIGIN = `chrome-extension://${SOUND_EXTENSION_ID}/`;

/** Whether the browser-wide request rule fails this request: what `urlRefusal` refuses, but for forge's own extension's files. */
export function requestBlocked(url: string, policy: UrlPolicy): boolean {
  return !url.startsWith(OWN_EXTENSION_ORIGIN) && urlRefusal(url, policy) !== undefined;
}
