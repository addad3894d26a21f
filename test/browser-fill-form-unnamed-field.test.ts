/**
 * A fill_form whose later field names no element is refused in words before any field is looked
 * up: the lookup of an earlier field is never left running with nobody to hear it (one such
 * lookup that found nothing ended the whole server, every viewer and agent with it).
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const PAGE = '<html><head><title>Form</title></head><body><label>Name <input id="name"></label></body></html>';

const it = toolPagesTest({}, { '/': PAGE });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/unnamed/lead');
});

describe('fill_form with a field that names nothing', () => {
  it('the call is refused naming what is missing, and forge goes on serving with nothing logged as lost', async ({ forge }) => {
    await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_fill_form', { fields: [
      { name: 'Nowhere', type: 'textbox', target: '#no-such-field', value: 'x' },
      { name: 'Unnamed', type: 'textbox', value: 'y' },
    ] });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('name the element with target');
    // Long enough for a lookup of the first field, had one started, to find nothing and fail.
    const after = await a.call('browser_snapshot', {});
    expect(after.isError).toBe(false);
    expect(after.text).toContain('Name');
    const next = await a.call('browser_fill_form', { fields: [{ name: 'Name', type: 'textbox', target: '#name', value: 'Ada' }] });
    expect(next.isError).toBe(false);
    expect(forge.output()).not.toContain('nobody was waiting for');
    expect(forge.output()).not.toContain('Unhandled');
  });
});
