/**
 * The browser host's DevTools for a test's own checks, beside forge (never an agent's path):
 * through the host's door, whose endpoint only forge's user can read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import CDP, { type CdpClient } from 'chrome-remote-interface';

/** The door's browser-level endpoint of a profile's host, as the host wrote it. */
export function hostEndpoint(stateDir: string, profile = 'default/default'): string {
  return readFileSync(join(stateDir, 'profiles', profile, 'devtools-endpoint'), 'utf8').trim();
}

/** The door's port: the one address a page must never load. */
export function hostDoorPort(stateDir: string, profile = 'default/default'): number {
  return Number(new URL(hostEndpoint(stateDir, profile)).port);
}

export interface HostTarget { id: string; type: string; url: string }

/** Every target of the host, its id the target id. */
export async function hostTargets(stateDir: string, profile = 'default/default'): Promise<HostTarget[]> {
  const client = await CDP({ target: hostEndpoint(stateDir, profile), local: true });
  try {
    const { targetInfos } = await client.send('Target.getTargets') as { targetInfos: Array<{ targetId: string; type: string; url: string }> };
    return targetInfos.map((t) => ({ id: t.targetId, type: t.type, url: t.url }));
  } finally {
    await client.close();
  }
}

/** A client of its own on one page: `send` speaks to that page, `on` hears its events. */
export interface PageClient {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  on(event: string, cb: (params: Record<string, unknown>) => void): void;
  close(): Promise<void>;
}

/** Attaches a client of the test's own to the page target `targetId`. */
export async function hostPageClient(stateDir: string, targetId: string, profile = 'default/default'): Promise<PageClient> {
  const client: CdpClient = await CDP({ target: hostEndpoint(stateDir, profile), local: true });
  const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true }) as { sessionId: string };
  return {
    send: (method, params) => client.send(method, params ?? {}, sessionId) as Promise<Record<string, unknown>>,
    on: (event, cb) => { client.on(`${event}.${sessionId}`, (params) => cb(params as Record<string, unknown>)); },
    close: () => client.close(),
  };
}
