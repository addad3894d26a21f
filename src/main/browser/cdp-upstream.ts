/**
 * The raw CDP door's own connection to a host's browser socket (loopback only), one per client
 * socket: commands go with a session id (flat sessions), answers come back as CDP's own result or
 * error object, and every event reaches one listener. When the browser's socket closes, every
 * command still waiting is answered with one error.
 */
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';

/** A CDP message as it crosses the socket. */
export interface CdpMessage { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string; result?: unknown; error?: CdpError }
export interface CdpError { code: number; message: string; data?: string }
export type CdpAnswer = { result: Record<string, unknown> } | { error: CdpError };

/** CDP's own code for a failed command ("Server error"): the code clients already handle. */
export const CDP_SERVER_ERROR = -32000;

interface CriClient extends EventEmitter {
  send(method: string, params: object, sessionId: string | undefined, cb: (isError: boolean | Error, response: unknown) => void): void;
  close(): Promise<void>;
}
type CriFactory = (opts: { target: string; local: boolean }) => Promise<CriClient>;
const require = createRequire(import.meta.url);
const cri = require('chrome-remote-interface') as CriFactory;

export class CdpUpstream {
  private closed = false;
  private closeListeners: Array<() => void> = [];

  private constructor(private readonly client: CriClient) {
    // A host that dies first closes the socket under us: its exit is reported by the host.
    client.on('error', () => undefined);
    client.on('disconnect', () => {
      this.closed = true;
      for (const cb of this.closeListeners.splice(0)) cb();
    });
  }

  static async connect(wsEndpoint: string): Promise<CdpUpstream> {
    return new CdpUpstream(await cri({ target: wsEndpoint, local: true }));
  }

  get isClosed(): boolean { return this.closed; }

  /** Every event the browser sends on this connection, whatever its session. */
  onEvent(cb: (m: CdpMessage) => void): void { this.client.on('event', cb); }
  onClose(cb: () => void): void { if (this.closed) cb(); else this.closeListeners.push(cb); }

  /**
   * Sends one command; `answered` gets CDP's result or its error object (a closed socket is an
   * error too) at once, in the browser's order: an answer passed on later (after a promise's turn)
   * would reach the client behind events the browser sent after it, and clients rely on that order.
   */
  relay(method: string, params: Record<string, unknown>, sessionId: string | undefined, answered: (a: CdpAnswer) => void): void {
    if (this.closed) { answered({ error: { code: CDP_SERVER_ERROR, message: 'the browser\'s socket closed' } }); return; }
    this.client.send(method, params, sessionId, (isError, response) => {
      if (isError instanceof Error) answered({ error: { code: CDP_SERVER_ERROR, message: `the browser's socket closed (${isError.message})` } });
      else if (isError) answered({ error: response as CdpError });
      else answered({ result: (response ?? {}) as Record<string, unknown> });
    });
  }

  /** `relay` as a promise, for forge's own commands, whose answers no client waits on in order. */
  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<CdpAnswer> {
    return new Promise((resolve) => this.relay(method, params, sessionId, resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => undefined);
  }
}
