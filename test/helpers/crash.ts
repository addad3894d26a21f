/** A real renderer crash for tests: `Page.crash` through a second CDP client on the host's own DevTools door. */
import { hostPageClient, hostTargets } from './host-devtools.js';

/** Crashes the renderer of the default profile's page at `url` in the server whose state is `stateDir`. */
export async function crashRenderer(stateDir: string, url: string): Promise<void> {
  const target = (await hostTargets(stateDir)).find((t) => t.type === 'page' && t.url === url)!;
  const client = await hostPageClient(stateDir, target.id);
  client.send('Page.crash').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1000));
  await client.close().catch(() => undefined);
}
