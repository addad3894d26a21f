/** The part of chrome-remote-interface (no published types) the tests drive: list targets, attach, send. */
declare module 'chrome-remote-interface' {
  interface CdpTarget { id: string; type: string; url: string }
  export interface CdpClient {
    send(method: string, params?: object, sessionId?: string): Promise<unknown>;
    on(event: string, cb: (params: unknown) => void): void;
    close(): Promise<void>;
    Runtime: { evaluate(params: { expression: string; returnByValue?: boolean }): Promise<{ result: { value?: unknown } }> };
  }
  interface Cdp {
    (opts: { port?: number; target?: string; local?: boolean }): Promise<CdpClient>;
    List(opts: { port: number }): Promise<CdpTarget[]>;
  }
  const CDP: Cdp;
  export default CDP;
}
