/**
 * The devtools group's tracing ([agent] caps = ["devtools"]): browser_start_tracing /
 * browser_stop_tracing record a Playwright trace (actions, DOM snapshots, screenshots, network)
 * that Playwright's trace viewer opens, answered as a zip file the agent reads with resources/read.
 * A trace records the whole browser profile, so it is one seat's only while no other seat has a
 * tab there: it is refused then, and withheld at its end when another seat's page came meanwhile.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { log } from '../../logging.js';
import type { ProfileBrowser } from '../profile.js';
import type { ToolDef } from './tool-def.js';
import { SEAT_FILE_MAX_BYTES } from './seat-files.js';

interface Tracing { seat: string; name: string; startedAt: number; others: Set<string>; stopWatching: () => void }

/** The trace running in each profile: a trace is the profile's, so one at a time. */
const tracings = new WeakMap<ProfileBrowser, Tracing>();

/** The seats other than `seat` with a tab open in the profile now. */
function otherSeats(p: ProfileBrowser, seat: string): string[] {
  return [...new Set(p.tabs.all().map((t) => t.owner).filter((o): o is string => !!o && o !== seat))];
}

/** Notes each seat other than `seat` whose page loads during the trace (a page opened and closed meanwhile included). */
function watchOthers(p: ProfileBrowser, seat: string, others: Set<string>): () => void {
  const context = p.driver!.context;
  const note = (page: Page): void => {
    const owner = p.tabs.all().find((t) => t.page === page)?.owner;
    if (owner && owner !== seat) others.add(owner);
  };
  const onPage = (page: Page): void => { page.on('framenavigated', () => note(page)); page.on('load', () => note(page)); };
  for (const page of context.pages()) onPage(page);
  context.on('page', onPage);
  return () => context.off('page', onPage);
}

export const TRACING_TOOLS: ToolDef[] = [
  {
    name: 'browser_start_tracing',
    cap: 'devtools',
    description: 'Start trace recording (actions, DOM snapshots, screenshots, network) of your tabs, for Playwright\'s trace viewer. A trace records the whole browser profile, so it is refused while another seat has a tab open in it.',
    schema: z.object({}).strict(),
    run: async (_a, ctx, p) => {
      const seat = ctx.seat.key;
      const now = tracings.get(p);
      if (now) throw new ForgeError('bad_request', now.seat === seat ? 'tracing is already running; browser_stop_tracing ends it' : `${now.seat} is tracing this browser profile; a trace records every tab in it, so one runs at a time`);
      const others = otherSeats(p, seat);
      if (others.length) throw new ForgeError('bad_request', `a trace records every tab of the browser profile, and ${others.join(', ')} ${others.length === 1 ? 'has a tab' : 'have tabs'} open in it; tracing would show their pages, so it waits until they close them`);
      const { driver } = await p.ensure();
      const name = `trace-${Date.now()}`;
      await driver.context.tracing.start({ name, screenshots: true, snapshots: true, sources: false });
      const seen = new Set<string>();
      tracings.set(p, { seat, name, startedAt: Date.now(), others: seen, stopWatching: watchOthers(p, seat, seen) });
      // A host that ends takes its trace with it.
      p.host?.onExit(() => { if (tracings.get(p)?.name === name) { tracings.get(p)?.stopWatching(); tracings.delete(p); } });
      log.info({ seat, profile: p.key }, 'tracing started');
      return { text: '### Result\n- Trace recording started. browser_stop_tracing ends it and answers the trace file (open it with `npx playwright show-trace`).' };
    },
  },
  {
    name: 'browser_stop_tracing',
    cap: 'devtools',
    description: 'Stop trace recording: the trace is answered as a zip file you read with resources/read (nothing is kept on the server). Open it with `npx playwright show-trace` or trace.playwright.dev.',
    schema: z.object({}).strict(),
    run: async (_a, ctx, p) => {
      const seat = ctx.seat.key;
      const t = tracings.get(p);
      if (!t || t.seat !== seat || !p.driver) throw new ForgeError('bad_request', t && t.seat !== seat ? `the trace running is ${t.seat}'s, not yours` : 'Tracing is not started (browser_start_tracing starts it)');
      tracings.delete(p);
      t.stopWatching();
      for (const o of otherSeats(p, seat)) t.others.add(o);
      const dir = await mkdtemp(join(tmpdir(), 'trace-'));
      const path = join(dir, `${t.name}.zip`);
      try {
        if (t.others.size) {
          await p.driver.context.tracing.stop();
          const who = [...t.others].join(', ');
          throw new ForgeError('bad_request', `the trace was discarded: ${who} opened a page in this browser profile while it ran, and a trace records every tab of the profile`);
        }
        await p.driver.context.tracing.stop({ path });
        const data = await readFile(path);
        if (data.length > SEAT_FILE_MAX_BYTES) throw new ForgeError('bad_request', `the trace is ${(data.length / 1024 / 1024).toFixed(1)} MiB, over the ${SEAT_FILE_MAX_BYTES / 1024 / 1024} MiB a file may be; trace a shorter stretch`);
        const secs = ((Date.now() - t.startedAt) / 1000).toFixed(1);
        return {
          text: `### Result\n- Trace recording stopped: ${secs} s, ${data.length} bytes of application/zip as ${t.name}.zip, linked below (read it with resources/read; open it with \`npx playwright show-trace\`).`,
          files: [{ name: `${t.name}.zip`, mimeType: 'application/zip', data, description: 'Playwright trace' }],
        };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  },
];
