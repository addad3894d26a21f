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
export type WebSocket<T> = UwsTypes.WebSocket<T>;
export type HttpResponse = UwsTypes.HttpResponse;
export type HttpRequest = UwsTypes.HttpRequest;
export type us_listen_socket = UwsTypes.us_listen_socket;
