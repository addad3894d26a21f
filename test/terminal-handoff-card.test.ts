/**
 * A terminal hand-off shows as a card in the chat, in real headless Chromium against a real
 * server: terminal hand-off · terminal N, the agent's reason, typing is hidden when it is, and
 * Open terminal, Done and Not now; Open raises the surface (the card then leaves the answers to
 * the bar), and the card's Done or Not now is the agent's answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { openClient } from './helpers/client-page.js';
import { useClientRig } from './helpers/client-rig.js';

const SEAT = 'default/proj/lead';

describe('the terminal hand-off card', () => {
  const rig = useClientRig(SEAT, '[terminal]\nshell = "/bin/bash"\n');
  let url = '';

  beforeAll(async () => {
    url = `${rig.server.info.viewer_url}&seat=${SEAT}`;
    await rig.agent.callTool({ name: 'terminal__run', arguments: { command: 'echo card-ready' } });
  });

  const handOff = (reason: string, hidden?: boolean): Promise<string> => rig.agent
    .callTool({ name: 'terminal_hand_off', arguments: { reason, ...(hidden === undefined ? {} : { hidden }) } }, undefined, { timeout: 60_000 })
    .then((r) => (r.structuredContent as { answer: string }).answer);

  it('shows the agent\'s reason and that typing is hidden, and its Done answers the agent', async () => {
    const client = await openClient(rig.browser, url);
    const answered = handOff('please type the deploy passphrase', true);
    const card = client.page.locator('article[aria-label^="terminal hand-off · terminal "]');
    await card.waitFor({ timeout: 10_000 });
    expect(await card.locator('.card-title').textContent()).toMatch(/^terminal hand-off · terminal \d+$/);
    expect(await card.locator('.card-words').textContent()).toBe('please type the deploy passphrase');
    expect(await card.getByText('typing is hidden').count()).toBe(1);
    await card.getByRole('button', { name: 'Done' }).click();
    expect(await answered).toBe('done');
    await expect.poll(() => card.count(), { timeout: 5000 }).toBe(0);
    await client.close();
  });

  it('Open terminal raises the surface and the card leaves the answers to its bar; Not now from the card answers the agent', async () => {
    const client = await openClient(rig.browser, url);
    const { page } = client;
    const answered = handOff('confirm the migration');
    const card = page.locator('article[aria-label^="terminal hand-off · terminal "]');
    await card.waitFor({ timeout: 10_000 });
    expect(await card.getByText('typing is hidden').count()).toBe(0);
    await card.getByRole('button', { name: 'Open terminal' }).click();
    const layer = page.locator('.takeover[data-surface="terminal"]');
    await layer.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.locator('.card-open').textContent(), { timeout: 5000 }).toBe('The terminal is open over the window; answer on its bar.');
    expect(await card.getByRole('button', { name: 'Done' }).count()).toBe(0);
    await page.getByRole('button', { name: 'back to chat' }).click();
    await expect.poll(() => layer.isHidden(), { timeout: 5000 }).toBe(true);
    await card.getByRole('button', { name: 'Not now' }).click();
    expect(await answered).toBe('not_now');
    await client.close();
  });
});
