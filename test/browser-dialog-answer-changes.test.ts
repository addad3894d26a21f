/**
 * A click that raises a dialog is answered with the dialog, and the click's own work goes on
 * behind it in the page. What that work saw after the dialog was answered reached nobody, so it
 * is not the seat's last reading: browser_handle_dialog answers with what accepting changed.
 */
import { describe, expect } from 'vitest';
import { refOf } from './helpers/tool-pages.js';
import { forgeTest } from './fixtures.js';

const PAGE = `<html><head><title>Draft</title></head><body>
  <h1>Draft</h1>
  <p role="status" id="said">Ready</p>
  <button onclick="if (confirm('Discard this draft?')) said.textContent = 'Draft discarded'">Discard draft</button>
</body></html>`;

const it = forgeTest({}, { '/': PAGE });

describe('a dialog\'s answer', () => {
  it('names the change that accepting the dialog made, though the click that raised it ran on behind the dialog', async ({ pages, agentFor }) => {
    const a = await agentFor('default/dialog-changes/lead');
    await a.call('browser_navigate', { url: pages.url });
    const before = (await a.call('browser_snapshot')).text;
    expect(before).toContain('status [ref=e');
    expect(before).toContain('Ready');
    const click = await a.call('browser_click', { element: 'Discard draft', target: refOf(before, 'button', 'Discard draft') });
    expect(click.text).toContain('opened a confirm dialog');
    const answer = await a.call('browser_handle_dialog', { accept: true });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('Accepted the confirm dialog');
    expect(answer.text).not.toContain('unchanged since your last snapshot');
    expect(answer.text).toMatch(/~ +- status \[ref=e\d+\]: Draft discarded/);
  });

  it('says unchanged when accepting changed nothing the seat had not read', async ({ agentFor }) => {
    const a = await agentFor('default/dialog-changes/lead');
    const now = (await a.call('browser_snapshot')).text;
    expect(now).toContain('Draft discarded');
    await a.call('browser_click', { element: 'Discard draft', target: refOf(now, 'button', 'Discard draft') });
    const answer = await a.call('browser_handle_dialog', { accept: true });
    expect(answer.text).toContain('unchanged since your last snapshot');
  });
});
