/**
 * The page is laid out at the surface the person sees, even when that surface changed size while
 * it was opening: a hand-off's Open raises the surface, and the bar takes the ask's rows while the
 * first picture is on its way, so the size the attach carried is no longer the canvas's. The page
 * was left at the attach's size, drawn with black bars, until the window itself was resized.
 */
import { describe, expect } from 'vitest';
import { handOff } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { openClient } from './helpers/client-page.js';

const it = forgeTest({}, { '/': '<title>Login</title><input type="password"><button>Sign in</button>' });

describe('a surface that changes size while it opens', () => {
  it('lays the page out at the surface\'s size once it is live, hand-off rows and all', async ({ forge, pages, agentFor, clientBrowser }) => {
    const agent = await agentFor('default/size/lead');
    await agent.call('browser_navigate', { url: pages.url });
    const pageId = /page (p-[0-9a-f]{8})/.exec((await agent.call('browser_tabs', { action: 'list' })).text)![1]!;
    const person = await openClient(clientBrowser, forge.info.viewer_url);
    const call = handOff(agent, pageId, 'Please sign in');
    const card = person.page.locator('.handoff-card');
    await card.waitFor({ timeout: 15_000 });
    await card.getByRole('button', { name: 'Open browser' }).click();
    await person.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
    await person.page.locator('.ask-words').waitFor();
    const surface = async (): Promise<string> => {
      const r = (await person.page.locator('.surface').boundingBox())!;
      return `${Math.round(r.width)}x${Math.round(r.height)}`;
    };
    const layout = async (): Promise<string> => {
      const text = (await agent.call('browser_evaluate', { function: '() => innerWidth + "x" + innerHeight' })).text;
      return /(\d+x\d+)/.exec(text)?.[1] ?? text;
    };
    await expect.poll(async () => (await layout()) === (await surface()), { timeout: 10_000 }).toBe(true);
    await person.page.getByRole('button', { name: 'Not now' }).click();
    expect((await call).structured).toMatchObject({ answer: 'not_now' });
    await person.close();
  });
});
