/**
 * The one door to uWebSockets.js. The registry does not publish it, so forge uses
 * @trufflesuite/uws-js-unofficial, which ships the real uWS v20.30 binary for Node 20.
 * Its loader falls back to a slow pure-JS server when the binary fails; forge loads the
 * binary itself so a failure is loud instead of a silent slowdown.
 */
import { createRequire } from 'node:module';
import type * as UwsTypes from '@trufflesuite/uws-js-unofficial';

const require = createRequire(import.meta.url);
const pkgDir = require.resolve('@trufflesuite/uws-js-unofficial/package.json').replace(/package\.json$/, '');
const binary = `${pkgDir}binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;

let uws: typeof UwsTypes;
try {
  uws = require(binary) as typeof UwsTypes;
} catch (e) {
  throw new Error(`the uWebSockets.js binary for this platform could not be loaded (${binary}): ${String(e)}`);
}

export const App = uws.App;
export const SSLApp = uws.SSLApp;
export const SHARED_COMPRESSOR = uws.SHARED_COMPRESSOR;
export const DISABLED = uws.DISABLED;
export const us_listen_socket_close = uws.us_listen_socket_close;
export const us_socket_local_port = uws.us_socket_local_port;
export type TemplatedApp = UwsTypes.TemplatedApp;
export type AppOptions = UwsTypes.AppOptions;
/** Closes every socket of `app`, listen sockets and idle keep-alive connections included (the binary has it; the published types do not). */
export function closeApp(app: TemplatedApp): void {
  (app as TemplatedApp & { close(): void }).close();
}
/**
 * uWS's LIBUS_LISTEN_EXCLUSIVE_PORT. Without it uWS binds with SO_REUSEPORT, so a second server
 * started on a port already served would bind too, and the kernel would split connections between
 * the two: half of a client's requests would meet the other server's tokens.
 */
const LISTEN_EXCLUSIVE_PORT = 1;
/** Listens on `host`:`port` alone: a port something else already holds fails (`false`) instead of being shared. */
export function listenExclusive(app: TemplatedApp, host: string, port: number, cb: (s: us_listen_socket | false) => void): void {
  (app as unknown as { listen(h: string, p: number, o: number, c: (s: us_listen_socket | false) => void): void }).listen(host, port, LISTEN_EXCLUSIVE_PORT, cb);
}
export type WebSocket<T> = UwsTypes.WebSocket<T>;
export type HttpResponse = UwsTypes.HttpResponse;
export type HttpRequest = UwsTypes.HttpRequest;
export type us_listen_socket = UwsTypes.us_listen_socket;
