/**
 * How forge is reached: the base URL every printed link and hand-off link is built on, and the
 * certificate and key forge.toml names, checked before anything starts (each file must be readable
 * and be what its key says: a PEM certificate, a PEM private key that matches it; uWS reads them
 * itself and says nothing useful when one is wrong, so the words are forge's).
 */
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { ForgeError } from '../shared/errors.js';
import { isWildcardHost, urlHost } from '../workers/relay/origin.js';
import type { ConfigPath, ServerConfig } from './config.js';

function read(source: string, key: string, f: ConfigPath): Buffer {
  try {
    return readFileSync(f.path);
  } catch (e) {
    throw new ForgeError('config', `${source}:${f.line}: key ${key}: ${f.path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

/** Throws the config error that names the file and key when the TLS files would not serve. */
export function checkTlsFiles(source: string, tls: NonNullable<ServerConfig['tls']>): void {
  const certPem = read(source, 'server.tls_cert', tls.cert);
  const keyPem = read(source, 'server.tls_key', tls.key);
  let cert: X509Certificate;
  try { cert = new X509Certificate(certPem); } catch {
    throw new ForgeError('config', `${source}:${tls.cert.line}: key server.tls_cert: ${tls.cert.path} is not a PEM certificate`);
  }
  let key: KeyObject;
  try { key = createPrivateKey(keyPem); } catch {
    throw new ForgeError('config', `${source}:${tls.key.line}: key server.tls_key: ${tls.key.path} is not a PEM private key (an encrypted key is not supported)`);
  }
  if (!cert.checkPrivateKey(key)) {
    throw new ForgeError('config', `${source}:${tls.key.line}: key server.tls_key: ${tls.key.path} is not the key of the certificate ${tls.cert.path}`);
  }
}

/**
 * The base URL links are built on: `public_url` when set, else the relay's own scheme, host and
 * port (a wildcard bind is printed as loopback, the one name sure to reach it from this machine).
 */
export function baseUrlFor(server: ServerConfig, port: number): string {
  if (server.publicUrl) return server.publicUrl;
  const host = isWildcardHost(server.host) ? (server.host.includes(':') ? '[::1]' : '127.0.0.1') : urlHost(server.host);
  return `${server.tls ? 'https' : 'http'}://${host}:${port}`;
}
