/**
 * The suite's one fixture (vitest `test.extend`): per file a real `forge serve`, one local page
 * server whose pages a file adds with `route()`, MCP agents by seat and a headless Chromium for
 * the web client; per test a viewer socket. Each is started on first use and stopped at the end
 * of its file (the viewer at the end of its test), agents before the server they talk to.
 *
 *   const test = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' });
 *   test('…', async ({ forge, pages, agentFor, viewer }) => { … });
 */
import { test as base } from 'vitest';
import type { Browser } from 'playwright-core';
import { connectAgent, startForge, type Agent, type RunningServer } from './helpers/server.js';
import { servePages, type PageServer } from './helpers/pages.js';
import { serveToolPages, type Served, type ToolPages } from './helpers/tool-pages.js';
import { launchClientBrowser } from './helpers/client-page.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';

export interface ForgeOptions { config?: string; toml?: string; env?: Record<string, string> }

type Page = string | ((origin: string) => string);

export interface TestPages extends PageServer {
  /** Serves `page` at `path` (from now on, for the rest of the file). */
  route: (path: string, page: Page) => void;
}

// File-scoped: `forge`, `pages`, `agentFor(seat)` (connected on first ask, the same agent after),
// `clientBrowser`. Test-scoped: `viewer`, a socket with the person's token.
/** The suite's test function for a file whose server runs with `opts`; `routes` are its first pages. */
export function forgeTest(opts: ForgeOptions = {}, routes: Record<string, Page> = {}) {
  return base
    .extend('forge', { scope: 'file' }, async ({}, { onCleanup }): Promise<RunningServer> => {
      const forge = await startForge(opts);
      onCleanup(() => forge.stop());
      return forge;
    })
    .extend('pages', { scope: 'file' }, async ({}, { onCleanup }): Promise<TestPages> => {
      const table: Record<string, Page> = { ...routes };
      const server = await servePages(table);
      onCleanup(() => server.close());
      return { ...server, route: (path, page) => { table[path] = page; } };
    })
    .extend('agentFor', { scope: 'file' }, async ({ forge }, { onCleanup }): Promise<(seat: string) => Promise<Agent>> => {
      const agents = new Map<string, Promise<Agent>>();
      onCleanup(async () => {
        for (const a of agents.values()) await a.then((x) => x.close()).catch(() => undefined);
      });
      return (seat) => {
        let a = agents.get(seat);
        if (!a) {
          a = connectAgent(forge, seat);
          agents.set(seat, a);
        }
        return a;
      };
    })
    .extend('clientBrowser', { scope: 'file' }, async ({}, { onCleanup }): Promise<Browser> => {
      const browser = await launchClientBrowser();
      onCleanup(() => browser.close());
      return browser;
    })
    .extend('viewer', async ({ forge }, { onCleanup }): Promise<TestViewer> => {
      const v = await openViewer(forge.info.port, forge.info.viewer_token);
      onCleanup(() => v.close());
      return v;
    });
}

/**
 * The fixture with `toolPages` as well: for the browser tool tests, a file-scoped page server whose
 * `routes` may answer any status or content type, late, or never (tool-pages.ts).
 */
export function toolPagesTest(opts: ForgeOptions, routes: Record<string, Served>) {
  return forgeTest(opts).extend('toolPages', { scope: 'file' }, async ({}, { onCleanup }): Promise<ToolPages> => {
    const server = await serveToolPages(routes);
    onCleanup(() => server.close());
    return server;
  });
}

/** The fixture with forge's default configuration. */
export const test = forgeTest();
export const it = test;
