import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const SHOP = `<html><head><title>Shop</title></head><body><h1>Products</h1>
  <ul>${Array.from({ length: 300 }, (_, i) => `<li>Product ${i + 1} <button onclick="document.getElementById('cart').textContent = 'Added ${i + 1}'">Add ${i + 1}</button></li>`).join('')}</ul>
  <p id="cart">Cart empty</p></body></html>`;

const it = toolPagesTest({}, { '/': SHOP });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/lists/lead');
});

describe('an action\'s answer shows a long list by its first entries; browser_snapshot and browser_find show all of it', () => {
  it('arriving on a 300-item page answers the first items and counts the rest, and the page after the list', async () => {
    const r = await a.call('browser_navigate', { url: pages.url });
    expect(r.text).toMatch(/Page snapshot \(290 entries of long lists counted, not shown\)/);
    expect(r.text).toContain('button "Add 10"');
    expect(r.text).not.toContain('Product 150');
    expect(r.text).toMatch(/… 290 more listitem entries \(refs e\d+…e\d+\): browser_find or browser_snapshot shows them/);
    expect(r.text).toContain('Cart empty');
  });

  it('browser_snapshot answers every item, and an item found by browser_find is clicked by its ref', async () => {
    expect((await a.call('browser_snapshot')).text).toContain('Product 150');
    const found = await a.call('browser_find', { text: 'Add 250' });
    const click = await a.call('browser_click', { target: refOf(found.text, 'button', 'Add 250') });
    expect(click.isError, click.text).toBe(false);
    expect(click.text).toContain('Added 250');
  });
});
