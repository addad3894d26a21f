import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const it = toolPagesTest({ toml: '[agent]\nallow_run_code = true\n' }, { '/': '<html><head><title>Console</title></head><body><button onclick="this.textContent = \'Done\'">Submit</button></body></html>' });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/runcode/lead');
  await a.call('browser_navigate', { url: pages.url });
});

describe('browser_run_code_unsafe, with [agent] allow_run_code = true, runs a Playwright function on the seat\'s tab', () => {
  it('the function gets the tab\'s page and its return value is the answer', async () => {
    const r = await a.call('browser_run_code_unsafe', { code: "async (page) => { await page.getByRole('button', { name: 'Submit' }).click(); return await page.title(); }" });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('"Console"');
    expect(r.text).toContain('button "Done"');
  });

  it('code that throws, code that is no function and a server file are refused in words', async () => {
    expect((await a.call('browser_run_code_unsafe', { code: 'async () => { throw new Error("nope"); }' })).text).toContain('your code threw: nope');
    expect((await a.call('browser_run_code_unsafe', { code: '42' })).text).toContain('code must be a function taking page');
    const file = await a.call('browser_run_code_unsafe', { filename: '/etc/hostname' });
    expect(file.isError).toBe(true);
    expect(file.text).toContain('forge does not read the server\'s files for an agent, so /etc/hostname was not opened');
  });
});
