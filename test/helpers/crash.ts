/** A real renderer crash for tests: `Page.crash` through a second CDP client on the host's own DevTools port. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import CDP from 'chrome-remote-interface';

/** Crashes the renderer of the default profile's page at `url` in the server whose state is `stateDir`. */
export async function crashRenderer(stateDir: string, url: string): Promise<void> {
  const port = Number(readFileSync(join(stateDir, 'profiles/default/default/chromium/DevToolsActivePort'), 'utf8').split('\n')[0]);
  const targets = (await CDP.List({ port })) as Array<{ id: string; type: string; url: string }>;
  const target = targets.find((t) => t.type === 'page' && t.url === url)!;
  const client = await CDP({ port, target: target.id });
  client.send('Page.crash').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1000));
  await client.close().catch(() => undefined);
}
