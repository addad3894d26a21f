/**
 * An unloaded tab whose page raises a dialog as it loads again: its next call answers with the
 * dialog held (its kind and words, and that browser_handle_dialog answers it), the rebuilt tab
 * lists the dialog waiting, and answering it lets the page finish its load — the dialog is
 * neither lost nor left to stall the call until its bounds.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';

const SEAT = 'default/revive/lead';
// The greeting's inline alert holds the page's load until it is answered.
const it = forgeTest({ toml: '[browser]\nhidden_agent_tabs = 1\n' }, {
  '/greet': '<title>Greeter</title><script>alert("welcome back")</script><p id="after">loaded after the greeting</p>',
  '/one': '<title>One</title>one',
  '/two': '<title>Two</title>two',
});

describe('a dialog raised while an unloaded tab reloads', () => {
  it('the tab\'s next call answers with the dialog held, and answering it finishes the load', async ({ pages, agentFor }) => {
    const agent = await agentFor(SEAT);
    const first = await agent.call('browser_navigate', { url: `${pages.url}greet` });
    expect(first.text).toContain('opened an alert dialog: "welcome back"');
    expect((await agent.call('browser_handle_dialog', { accept: true })).isError).toBe(false);
    await agent.call('browser_tabs', { action: 'new', url: `${pages.url}one` });
    await agent.call('browser_tabs', { action: 'new', url: `${pages.url}two` });
    const list = (await agent.call('browser_tabs', { action: 'list' })).text;
    expect(list).toMatch(/- 1: Greeter · [^\n]*· unloaded/);

    const selected = await agent.call('browser_tabs', { action: 'select', index: 1 });
    expect(selected.isError).toBe(false);
    const r = await agent.call('browser_snapshot');
    expect(r.text).toContain('had been unloaded to save memory and was reloaded');
    expect(r.text).toContain('alert');
    expect(r.text).toContain('welcome back');
    expect((await agent.call('browser_tabs', { action: 'list' })).text).toMatch(/- 1: [^\n]*alert waiting/);

    expect((await agent.call('browser_handle_dialog', { accept: true })).isError).toBe(false);
    const after = await agent.call('browser_snapshot');
    expect(after.isError).toBe(false);
    expect(after.text).toContain('loaded after the greeting');
  });
});
