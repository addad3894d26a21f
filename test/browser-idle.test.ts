import { describe, expect, onTestFinished } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';

let pages: TestPages;
let a: Agent;

// 0.05 minutes: the idle close comes 3 s after the last call.
const it = forgeTest({ toml: '[browser]\nidle_minutes = 0.05\n' }, {
  '/': '<title>Idle</title><p>idle</p>',
  '/upload': '<title>Upload</title><input type="file" id="f" multiple onchange="document.title = [...this.files].map((f) => f.name + \':\' + f.size).join(\',\')">',
});

it.beforeAll(async ({ pages: p, agentFor }) => {
  pages = p;
  a = await agentFor('default/idle/lead');
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('an idle browser closes on the server\'s clock', () => {
  it('a viewer attached keeps the host open past the idle time', async ({ viewer: v }) => {
    await a.call('browser_navigate', { url: pages.url });
    v.send({ t: 'attach', w: 800, h: 600 });
    await v.next('view');
    await sleep(5000);
    expect((await a.call('browser_tabs', { action: 'list' })).text).toContain('(current) Idle');
  });

  it('with no call and no viewer the host closes, and the next call starts a fresh one', async () => {
    await a.call('browser_snapshot');
    await sleep(5500);
    const list = await a.call('browser_tabs', { action: 'list' });
    expect(list.text).toContain('No browser host runs');
    const next = await a.call('browser_navigate', { url: pages.url });
    expect(next.isError).toBe(false);
    expect(next.text).toContain('idle');
  });
});

describe('file choosers', () => {
  it('browser_file_upload answers the chooser a click opened with files from the server\'s disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forge-upload-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a.txt'), 'hello');
    await a.call('browser_navigate', { url: `${pages.origin}/upload` });
    const none = await a.call('browser_file_upload', { paths: [join(dir, 'a.txt')] });
    expect(none.isError).toBe(true);
    expect(none.text).toMatch(/no file chooser is open on tab \d+/);
    await a.call('browser_click', { ref: 'css=#f' });
    const r = await a.call('browser_file_upload', { paths: [join(dir, 'a.txt')] });
    expect(r.isError).toBe(false);
    expect((await a.call('browser_evaluate', { function: '() => document.title' })).text).toContain('a.txt:5');
  });
});
