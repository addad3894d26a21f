/**
 * The relay's app and the door every route passes first: an App, or an SSLApp when the server has
 * a certificate; and, per request, the Host and Origin rule (origin.ts) answered in words.
 */
import { networkInterfaces } from 'node:os';
import { App, SSLApp, type HttpRequest, type HttpResponse, type TemplatedApp } from './uws.js';
import { judgeRequest, servedNames, type ServedNames } from './origin.js';
import { COMMON_HEADERS, writeHeaders } from './headers.js';

export interface RelayTls { certFile: string; keyFile: string }

/** The app the relay serves on: HTTPS and WSS with a certificate, else plain HTTP and WS. */
export function makeApp(tls: RelayTls | undefined): TemplatedApp {
  return tls ? SSLApp({ cert_file_name: tls.certFile, key_file_name: tls.keyFile }) : App();
}

/** The names this relay answers to once it listens on `port`. */
export function relayNames(opts: { port: number; bindHost: string; tls: boolean; publicUrl?: string }): ServedNames {
  const interfaceAddresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return servedNames({ ...opts, interfaceAddresses });
}

/**
 * The door's check of one request, read from `req` at once (uWS's request lives only for the
 * handler's synchronous part). True when it was refused and answered; the route then returns.
 */
export function misdirected(res: HttpResponse, req: HttpRequest, names: ServedNames | undefined, checkOrigin: boolean): boolean {
  // Nothing is answered before the relay knows its port, and with it its names.
  const verdict = names
    ? judgeRequest(names, { host: req.getHeader('host'), origin: req.getHeader('origin'), checkOrigin })
    : { ok: false as const, status: '421 Misdirected Request' as const, words: 'forge is still starting\n' };
  if (verdict.ok) return false;
  res.cork(() => {
    writeHeaders(res.writeStatus(verdict.status), COMMON_HEADERS)
      .writeHeader('content-type', 'text/plain; charset=utf-8')
      .end(verdict.words);
  });
  return true;
}
