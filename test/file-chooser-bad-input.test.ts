/**
 * A page's file chooser answered over the viewer socket: only the controller's answer counts, a
 * bad answer is refused in words with the chooser still open and the connection still usable,
 * and an answer past the limits is a dismiss with its sentence.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningServer, Agent } from './helpers/server.js';
import { startFileRig, type FileRig } from './helpers/file-pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { FILE_CHOOSER_MAX_BYTES, FILE_CHOOSER_MAX_FILES } from '../src/shared/limits.js';

let rig: FileRig;
let forge: RunningServer;
let a: Agent;
let ctl: TestViewer;
let watcher: TestViewer;

const title = async (): Promise<string> => (await a.call('browser_evaluate', { function: '() => document.title' })).text;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function usable(v: TestViewer): Promise<void> {
  v.send({ t: 'ping', id: 99 });
  await v.next('pong');
}

beforeAll(async () => {
  rig = await startFileRig('default/files/lead', '/upload');
  ({ forge, a } = rig);
});

afterAll(async () => {
  await ctl?.close();
  await watcher?.close();
  await rig?.stop();
});

describe('a file chooser with nobody controlling the tab', () => {
  it('waits for the agent: browser_file_upload still answers it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forge-upload-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'disk.txt'), 'from disk');
    await a.call('browser_click', { ref: 'css=#f' });
    const r = await a.call('browser_file_upload', { paths: [join(dir, 'disk.txt')] });
    expect(r.isError).toBe(false);
    expect(await title()).toContain('files disk.txt:9');
  });
});

describe('the controller answers a file chooser', () => {
  let chooser = '';

  it('the chooser goes to the viewer controlling the tab, not to a watcher', async () => {
    ctl = await openViewer(forge.info.port, forge.info.viewer_token);
    watcher = await openViewer(forge.info.port, forge.info.viewer_token);
    ctl.send({ t: 'attach', w: 800, h: 600 });
    await ctl.next('view');
    watcher.send({ t: 'attach', w: 800, h: 600 });
    await watcher.next('view');
    ctl.send({ t: 'control', take: true });
    await ctl.next('view', (m) => m.controller === m.you);
    await a.call('browser_click', { ref: 'css=#f' });
    const ask = await ctl.next('file_chooser');
    expect(ask).toMatchObject({ tab: 1, multiple: true });
    chooser = ask.chooser as string;
    expect(watcher.messages.some((m) => m.t === 'file_chooser')).toBe(false);
  });

  const refusals: Array<[string, () => TestViewer, () => Record<string, unknown>, RegExp]> = [
    ['a watcher\'s answer', () => watcher, () => ({ chooser, files: [{ name: 'x.txt', data: b64('x') }] }), /only the viewer controlling tab 1 answers its file chooser/],
    ['a stale chooser id', () => ctl, () => ({ chooser: 'fc-00000000', dismiss: true }), /the file chooser fc-00000000 is no longer open/],
    ['no chooser named', () => ctl, () => ({ files: [] }), /names its chooser/],
    ['files that are not a list', () => ctl, () => ({ chooser, files: 'a.txt' }), /carries files/],
    ['a file with no name', () => ctl, () => ({ chooser, files: [{ data: b64('x') }] }), /file 1 of the answer was refused: name/],
    ['bytes that are not base64', () => ctl, () => ({ chooser, files: [{ name: 'a.txt', data: '@@not base64@@' }] }), /not valid base64; the chooser is still open/],
  ];

  for (const [what, who, body, words] of refusals) {
    it(`${what} is refused in words, and the connection stays usable`, async () => {
      const v = who();
      v.send({ t: 'file_chooser_answer', ...body(), id: 7 } as never);
      const err = await v.next('error', (m) => m.for === 'file_chooser_answer');
      expect(err.message).toMatch(words);
      expect(err.id).toBe(7);
      await usable(v);
    });
  }

  it('after the refusals the chooser is still open, and the controller\'s answer reaches the page', async () => {
    ctl.send({ t: 'file_chooser_answer', chooser, files: [{ name: 'a.txt', type: 'text/plain', data: b64('hello') }, { name: 'b.png', data: b64('PNG!!!') }] });
    const end = await ctl.next('file_chooser_end');
    expect(end).toMatchObject({ chooser, outcome: 'picked' });
    expect(end.message).toBe('Sent a.txt, b.png to the page.');
    const t = await title();
    expect(t).toContain('Events: the person picked 2 files (a.txt, b.png) for the file chooser on tab 1');
    expect(t).toContain('files a.txt:5,b.png:6');
    // An answer to the chooser that was just answered is stale.
    ctl.send({ t: 'file_chooser_answer', chooser, dismiss: true });
    expect((await ctl.next('error', (m) => m.for === 'file_chooser_answer')).message).toMatch(/no longer open/);
  });

  it(`more than ${FILE_CHOOSER_MAX_FILES} files is a dismiss with its sentence`, async () => {
    await a.call('browser_click', { ref: 'css=#f' });
    const ask = await ctl.next('file_chooser');
    const files = Array.from({ length: FILE_CHOOSER_MAX_FILES + 1 }, (_, i) => ({ name: `f${i}.txt`, data: b64('x') }));
    ctl.send({ t: 'file_chooser_answer', chooser: ask.chooser as string, files });
    const end = await ctl.next('file_chooser_end');
    expect(end.outcome).toBe('dismissed');
    expect(end.message).toMatch(/17 files is more than the 16 one answer may carry/);
    const t = await title();
    expect(t).toContain('Events: the file chooser on tab 1 was dismissed: 17 files is more than the 16');
    expect(t).not.toContain('f0.txt');
    await usable(ctl);
  });

  it(`base64 past ${FILE_CHOOSER_MAX_BYTES / (1024 * 1024)} MiB is a dismiss with its sentence, and the socket stays open`, async () => {
    await a.call('browser_click', { ref: 'css=#f' });
    const ask = await ctl.next('file_chooser');
    const big = Buffer.alloc(FILE_CHOOSER_MAX_BYTES + 3, 1).toString('base64');
    ctl.send({ t: 'file_chooser_answer', chooser: ask.chooser as string, files: [{ name: 'big.bin', data: big }] });
    const end = await ctl.next('file_chooser_end');
    expect(end.outcome).toBe('dismissed');
    expect(end.message).toMatch(/more than the 8 MiB one answer may carry/);
    await usable(ctl);
  });

  it('a dismiss cancels the chooser, and the agent hears it', async () => {
    await a.call('browser_click', { ref: 'css=#f' });
    const ask = await ctl.next('file_chooser');
    ctl.send({ t: 'file_chooser_answer', chooser: ask.chooser as string, dismiss: true });
    expect((await ctl.next('file_chooser_end')).outcome).toBe('dismissed');
    const r = await a.call('browser_file_upload', { paths: [] });
    expect(r.text).toContain('the person dismissed the picker for the file chooser on tab 1');
    expect(r.text).toMatch(/no file chooser is open on tab 1/);
  });

  it('the agent answering the chooser closes the person\'s picker', async () => {
    await a.call('browser_click', { ref: 'css=#f' });
    const ask = await ctl.next('file_chooser');
    await a.call('browser_file_upload', { paths: [] });
    const end = await ctl.next('file_chooser_end', (m) => m.chooser === ask.chooser);
    expect(end).toMatchObject({ outcome: 'gone', message: 'The agent answered the page\'s file chooser.' });
  });

  it('a chooser that waited is offered to the viewer who takes control', async () => {
    ctl.send({ t: 'control', take: false });
    await ctl.next('view', (m) => m.controller === null);
    await a.call('browser_click', { ref: 'css=#f' });
    watcher.send({ t: 'control', take: true });
    const ask = await watcher.next('file_chooser');
    watcher.send({ t: 'file_chooser_answer', chooser: ask.chooser as string, files: [{ name: 'late.txt', data: b64('late') }] });
    expect((await watcher.next('file_chooser_end')).outcome).toBe('picked');
    expect(await title()).toContain('files late.txt:4');
  });
});
