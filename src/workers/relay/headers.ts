/**
 * The headers every served file carries, and the page policy of the client's HTML (the viewer,
 * the hand-off page, the bare terminal page). The policy is what the real client runs under and
 * nothing more: its scripts and frame worker are forge's own files, its pictures are decoded from
 * blobs, its socket is same-origin, and its terminal's renderer writes style elements.
 */

/**
 * The client's Content-Security-Policy. `connect-src 'self'` covers the same-origin ws:/wss:
 * socket in current Chromium; `style-src 'unsafe-inline'` is for the style elements xterm.js
 * writes (its theme and cell sizes), not for any markup of forge's; `'wasm-unsafe-eval'` lets the
 * terminal's image addon compile its Sixel decoder (WebAssembly only, never a string as script).
 */
export const CLIENT_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "media-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers on every answer forge writes: no framing (clickjacking a take-control), no sniffing of a
 * type, and no Referer (a hand-off link's token is in its path and must not leave with a click).
 */
export const COMMON_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-frame-options', 'DENY'],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
];

/** The HTML pages: the policy, and never kept by a cache (a hand-off page's URL holds its token). */
export const PAGE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ...COMMON_HEADERS,
  ['content-security-policy', CLIENT_CSP],
  ['cache-control', 'no-store'],
];

/** The client's scripts and styles: revalidated, so a rebuilt client is picked up at once. */
export const ASSET_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ...COMMON_HEADERS,
  ['cache-control', 'no-cache'],
];

/** Whether a served file is one of the client's HTML pages. */
export function isPage(contentType: string): boolean {
  return contentType.startsWith('text/html');
}

/** Writes a header list through anything with uWS's `writeHeader`. */
export function writeHeaders<T extends { writeHeader(k: string, v: string): T }>(res: T, headers: ReadonlyArray<readonly [string, string]>): T {
  for (const [k, v] of headers) res.writeHeader(k, v);
  return res;
}
