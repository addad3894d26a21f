/**
 * A raw CDP connection to a host's browser endpoint (chrome-remote-interface underneath), with
 * flat sessions: `send(method, params, sessionId)` reaches a page through the browser socket.
 */
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';

interface CriClient extends EventEmitter {
  send(method: string, params?: object, sessionId?: string): Promise<unknown>;
  close(): Promise<void>;
}
type CriFactory = (opts: { target: string; local: boolean }) => Promise<CriClient>;

const require = createRequire(import.meta.url);
const cri = require('chrome-remote-interface') as CriFactory;

export class CdpConnection {
  private closed = false;
  private constructor(private readonly client: CriClient) {
    // A host that dies first closes the socket under us; the host's own exit reports it.
    client.on('error', () => undefined);
    client.on('disconnect', () => { this.closed = true; });
  }

  static async connect(wsEndpoint: string): Promise<CdpConnection> {
    return new CdpConnection(await cri({ target: wsEndpoint, local: true }));
  }

  get isClosed(): boolean { return this.closed; }

  send<T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    return (sessionId ? this.client.send(method, params, sessionId) : this.client.send(method, params)) as Promise<T>;
  }

  /** Listens to a CDP event (any session); `cb` gets the params and the session id. */
  // biome-ignore lint/suspicious/noExplicitAny: each caller reads the params of the one event it names.
  on(event: string, cb: (params: any, sessionId?: string) => void): void { this.client.on(event, cb); }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => undefined);
  }
}
