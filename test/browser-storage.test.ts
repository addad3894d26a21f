import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;
let b: Agent;

const it = toolPagesTest({ toml: '[agent]\ncaps = ["storage"]\n' }, { '/': '<html><head><title>Shop</title></head><body><h1>Shop</h1></body></html>' });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/storage/lead');
  b = await agentFor('default/storage/other');
  await a.call('browser_navigate', { url: pages.url });
  await b.call('browser_navigate', { url: pages.url });
});

const pageSees = async (agent: Agent, expr: string): Promise<string> => (await agent.call('browser_evaluate', { function: `() => ${expr}` })).text;

describe('the storage group reads and writes the profile\'s cookies and the tab\'s web storage', () => {
  it('a cookie set is the page\'s cookie, listed and read with its flags, and shared by the profile\'s seats', async () => {
    const set = await a.call('browser_cookie_set', { name: 'session', value: 'abc123' });
    expect(set.isError, set.text).toBe(false);
    expect(set.text).toContain('for every seat on this profile');
    expect(await pageSees(a, 'document.cookie')).toContain('session=abc123');
    expect((await a.call('browser_cookie_list', {})).text).toContain('session=abc123 (domain: 127.0.0.1, path: /)');
    expect((await a.call('browser_cookie_get', { name: 'session' })).text).toMatch(/session=abc123 \(domain: 127\.0\.0\.1, path: \/, expires: session, httpOnly: false/);
    // The profile is the org's: the other seat's page has the same login.
    expect(await pageSees(b, 'document.cookie')).toContain('session=abc123');
    const tools = (await a.client.listTools()).tools;
    expect(tools.find((t) => t.name === 'browser_cookie_set')!.description).toContain('logins are shared by every seat');
  });

  it('localStorage and sessionStorage are set, read, listed, deleted and cleared on the current tab\'s page', async () => {
    await a.call('browser_localstorage_set', { key: 'theme', value: 'dark' });
    expect(await pageSees(a, "localStorage.getItem('theme')")).toContain('dark');
    expect((await a.call('browser_localstorage_get', { key: 'theme' })).text).toContain('theme=dark');
    expect((await a.call('browser_localstorage_list', {})).text).toContain(`localStorage of ${pages.origin}:\ntheme=dark`);
    await a.call('browser_sessionstorage_set', { key: 'step', value: '2' });
    expect(await pageSees(a, "sessionStorage.getItem('step')")).toContain('2');
    // sessionStorage is the tab's own: the other seat's tab of the same origin has none.
    expect(await pageSees(b, "String(sessionStorage.getItem('step'))")).toContain('null');
    await a.call('browser_sessionstorage_delete', { key: 'step' });
    expect((await a.call('browser_sessionstorage_get', { key: 'step' })).text).toContain('has no key "step"');
    await a.call('browser_localstorage_clear', {});
    expect((await a.call('browser_localstorage_list', {})).text).toContain('(empty)');
  });

  it('the storage state is a JSON file, and setting it back restores the cookie cleared since', async () => {
    const r = await a.client.callTool({ name: 'browser_storage_state', arguments: {} });
    const link = (r.content as Array<{ type: string; uri?: string }>).find((c) => c.type === 'resource_link');
    expect(link).toBeTruthy();
    const json = (await a.client.readResource({ uri: link!.uri! })).contents[0] as { text: string; mimeType: string };
    expect(json.mimeType).toBe('application/json');
    expect(JSON.parse(json.text).cookies.map((c: { name: string }) => c.name)).toContain('session');

    await a.call('browser_cookie_delete', { name: 'session' });
    expect(await pageSees(a, 'document.cookie')).not.toContain('session=');
    const restored = await a.call('browser_set_storage_state', { state: json.text });
    expect(restored.isError, restored.text).toBe(false);
    expect(await pageSees(a, 'document.cookie')).toContain('session=abc123');
    // Restoring opened no tab a seat or a viewer would see.
    expect((await a.call('browser_tabs', { action: 'list' })).text.match(/^- \d+:/gm)).toHaveLength(2);
  });

  it('a storage state named by a server path is not read; the words say to pass its JSON', async () => {
    const r = await a.call('browser_set_storage_state', { filename: '/etc/passwd' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('forge does not read the server\'s files for an agent, so /etc/passwd was not opened; pass the file\'s JSON text as state');
  });

  it('cookie_clear logs every seat out and says so', async () => {
    expect((await a.call('browser_cookie_clear', {})).text).toMatch(/Cleared \d+ cookies?, for every seat on this profile/);
    expect(await pageSees(b, 'document.cookie')).not.toContain('session=');
  });
});
