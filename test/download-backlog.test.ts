/**
 * A page's downloads: kept beside the profile and offered to the tab's controller as a link the
 * relay serves; past 32 MiB refused in words; the profile keeps at most four, and what the
 * backlog drops is announced to the profile's viewers with the count.
 */
import { describe, expect } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { downloadBytes, serveFilePages, type FilePages } from './helpers/file-pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { DOWNLOAD_BACKLOG_MAX } from '../src/shared/limits.js';

let forge: RunningServer;
let pages: FilePages;
let a: Agent;
let ctl: TestViewer;
let strip: TestViewer;

const fetchLink = (url: string): Promise<Response> => fetch(`http://127.0.0.1:${forge.info.port}${url}`);
const downloadsDir = (): string => join(forge.stateDir, 'profiles', 'default', 'default-downloads');

const it = forgeTest();

it.beforeAll(async ({ forge: f, agentFor }) => {
  forge = f;
  // Pages of their own: their downloads answer as attachments.
  pages = await serveFilePages();
  a = await agentFor('default/dl/lead');
  await a.call('browser_navigate', { url: `${pages.origin}/downloads` });
  ctl = await openViewer(forge.info.port, forge.info.viewer_token);
  ctl.send({ t: 'attach', w: 800, h: 600 });
  await ctl.next('view');
  ctl.send({ t: 'control', take: true });
  await ctl.next('view', (m) => m.controller === m.you);
  // A viewer of the profile's tab list only: the loss notice names the profile, so it hears it too.
  strip = await openViewer(forge.info.port, forge.info.viewer_token);
  strip.send({ t: 'tabs' });
  await strip.next('tabs');
});

it.afterAll(async () => {
  await ctl?.close();
  await strip?.close();
  await pages?.close();
});

let firstUrl = '';
let said = '';

describe('a download on the controlled tab', () => {
  it('is offered to the controller, whose link fetches its bytes', async () => {
    said = (await a.call('browser_click', { ref: 'css=#small' })).text;
    const offer = await ctl.next('download');
    expect(offer).toMatchObject({ tab: 1, name: 'report.csv', size: 12345 });
    firstUrl = offer.url as string;
    const res = await fetchLink(firstUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('filename="report.csv"');
    expect(Buffer.from(await res.arrayBuffer()).equals(downloadBytes('report.csv', 12345))).toBe(true);
    expect(strip.messages.some((m) => m.t === 'download')).toBe(false);
  });

  it('the agent\'s next tool result says it finished and was offered', async () => {
    // The download may finish inside the click's own call; else the next call carries it.
    said += (await a.call('browser_snapshot')).text;
    expect(said).toContain('Events: a download finished on tab 1: report.csv (12 KB), offered to the person.');
  });

  it('an altered or unsigned link is refused', async () => {
    expect((await fetchLink(firstUrl.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).status).toBe(403);
    expect((await fetchLink('/download?k=d.x.1.y')).status).toBe(403);
    expect((await fetchLink('/download')).status).toBe(403);
  });
});

describe('a download past 32 MiB', () => {
  it('is refused in words to the controller and the agent, and nothing is kept', async () => {
    const before = readdirSync(downloadsDir()).length;
    const clicked = await a.call('browser_click', { ref: 'css=#big' });
    const refused = await ctl.next('download_refused', () => true, 60_000);
    expect(refused.message).toBe('The download huge.bin is 33.0 MiB, past the 32 MiB a client is handed; it was not kept.');
    const r = await a.call('browser_snapshot');
    // The agent is told once: in the click's own answer when the download ended before it, else in the next call's.
    const told = `${clicked.text}\n${r.text}`.split('a download on tab 1 was refused: huge.bin is 33.0 MiB, past the 32 MiB a client is handed').length - 1;
    expect(told, `the agent was told once, in:\n${clicked.text}\n${r.text}`).toBe(1);
    expect(readdirSync(downloadsDir()).length).toBe(before);
  });
});

describe(`the profile's backlog holds ${DOWNLOAD_BACKLOG_MAX}`, () => {
  it('downloads past it drop the oldest, files and all; a loss is announced with its count, and one the person already fetched is no loss', async () => {
    ctl.send({ t: 'control', take: false });
    await ctl.next('view', (m) => m.controller === null);
    let text = '';
    for (let i = 1; i <= 6; i++) text += (await a.call('browser_click', { ref: `css=#file${i}` })).text;
    // report.csv and six more: three are dropped, and report.csv was fetched by the person already.
    let dropped = 0;
    const notices: Array<Record<string, unknown>> = [];
    while (dropped < 2) {
      const n = await strip.next('download_lost', () => true, 30_000);
      notices.push(n);
      dropped += n.count as number;
    }
    expect(dropped).toBe(2);
    for (const n of notices) {
      expect(n).toMatchObject({ profile: 'default/default', max: 4 });
      expect(n.tab).toBeUndefined();
      expect(n.title).toBe(n.count === 1 ? 'A download was lost' : `${n.count as number} downloads were lost`);
      expect(n.message).toMatch(/finished downloads? (was|were) dropped: profile default\/default's backlog holds at most 4 at a time\./);
    }
    // The controller of the profile's tab is a viewer of the profile too.
    expect(ctl.messages.filter((m) => m.t === 'download_lost').length).toBe(notices.length);
    expect(readdirSync(downloadsDir()).length).toBe(DOWNLOAD_BACKLOG_MAX);
    // The fetched one left the backlog too, without a word.
    expect((await fetchLink(firstUrl)).status).toBe(410);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(strip.messages.filter((m) => m.t === 'download_lost').reduce((n, m) => n + (m.count as number), 0)).toBe(2);
    text += (await a.call('browser_snapshot')).text;
    // One sentence for both, or one each when the two drops fell in different calls.
    for (const name of ['file1', 'file2']) {
      expect(text).toMatch(new RegExp(`finished downloads? (was|were) dropped from profile default/default's backlog, which holds at most 4 \\([^)]*${name}\\.txt`));
    }
    expect(text).toContain('a download finished on tab 1: file6.txt (106 B), kept for the person who takes control of tab 1');
  });

  it('the kept ones are offered to whoever takes control of the tab', async () => {
    ctl.send({ t: 'control', take: true });
    const names = new Set<string>();
    while (names.size < DOWNLOAD_BACKLOG_MAX) names.add((await ctl.next('download')).name as string);
    expect([...names].sort()).toEqual(['file3.txt', 'file4.txt', 'file5.txt', 'file6.txt']);
    expect(existsSync(downloadsDir())).toBe(true);
  });

  it('a kept download whose tab closed is offered to whoever controls another tab of the profile', async () => {
    await a.call('browser_tabs', { action: 'new', url: `${pages.origin}/downloads` });
    await a.call('browser_click', { ref: 'css=#file1' });
    await strip.next('download_lost', (m) => (m.dropped as string[]).length === 1);
    await a.call('browser_tabs', { action: 'close' });
    ctl.send({ t: 'control', take: false });
    await ctl.next('view', (m) => m.controller === null);
    ctl.send({ t: 'control', take: true });
    const offer = await ctl.next('download', (m) => m.tab === 2);
    expect(offer.name).toBe('file1.txt');
    const res = await fetchLink(offer.url as string);
    expect(Buffer.from(await res.arrayBuffer()).equals(downloadBytes('file1.txt', 101))).toBe(true);
  });
});
