/**
 * An action's callout comes before the action, as Playwright's own video annotations do: in the
 * take's frames the target is marked and the action titled first, held a moment, and only then
 * does the page show what the action did. Read from the frames the WebM stores, none skipped.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';
import { framesOf, meanOf, pixelsOf } from './helpers/webm-frames.js';

/** A white page whose button, once clicked or typed into, turns the whole page blue. */
const PAGE = `<html><head><title>Pay</title></head><body style="margin:0;background:#fff">
  <button style="position:fixed;left:45%;top:45%;width:10%;height:10%;background:#fff;border:0"
    onclick="document.body.style.background='#00f'">Pay</button>
  <input aria-label="Note" style="position:fixed;left:45%;top:70%;width:10%;height:5%;border:0;background:#fff"
    oninput="document.body.style.background='#0f0'"></body></html>`;

const it = forgeTest({ toml: '[agent]\ncaps = ["devtools"]\n' }, { '/pay': PAGE });

type Content = Array<{ type: string; text?: string; uri?: string }>;
/** How long each callout is held, ms: long enough that a 25 fps take has several frames of it. */
const HOLD_MS = 800;
/** The highlight drawn over the target: a solid red box, easy to tell from white, blue and green. */
const HIGHLIGHT = 'background: rgb(255, 0, 0)';
/** The title drawn as a black box over the top-left corner, easy to tell from any page colour here. */
const TITLE = 'background: rgb(0, 0, 0); color: rgb(0, 0, 0); width: 240px; height: 60px; padding: 0; margin: 0; border-radius: 0';

let agent: Agent;
let file: Buffer;

interface Seen { atMs: number; titled: boolean; marked: boolean; markedNote: boolean; blue: boolean; green: boolean }

/** Per stored frame: the title callout (top-left, dark), the red box over the button or the input, and the page's colour far from both. */
async function seen(): Promise<Seen[]> {
  const out: Seen[] = [];
  for (const f of framesOf(file)) {
    const p = await pixelsOf(f);
    const corner = meanOf(p, 20, 20, 200, 40);
    const button = meanOf(p, 600, 340, 80, 40);
    const note = meanOf(p, 600, 508, 80, 20);
    const far = meanOf(p, 1000, 600, 200, 80);
    const red = (c: number[]): boolean => c[0]! > 180 && c[1]! < 90 && c[2]! < 90;
    out.push({
      atMs: f.atMs,
      titled: Math.max(...corner) < 60,
      marked: red(button), markedNote: red(note),
      blue: far[2]! > 180 && far[0]! < 90, green: far[1]! > 180 && far[0]! < 90,
    });
  }
  return out;
}

describe('a take shows each action\'s callout over its target before the action\'s effect', () => {
  it('a click and a type are recorded with their callouts shown', async ({ pages, agentFor }) => {
    agent = await agentFor('default/callouts/lead');
    expect((await agent.call('browser_navigate', { url: `${pages.origin}/pay` })).isError).toBe(false);
    const start = await agent.call('browser_start_video', { filename: 'pay.webm' });
    expect(start.isError, start.text).toBe(false);
    const on = await agent.call('browser_video_show_actions', { duration: HOLD_MS, position: 'top-left', cursor: 'none', style: { highlight: HIGHLIGHT, title: TITLE } });
    expect(on.isError, on.text).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    const click = await agent.call('browser_click', { target: 'role=button[name="Pay"]' });
    expect(click.isError, click.text).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    const type = await agent.call('browser_type', { target: 'role=textbox[name="Note"]', text: 'hi' });
    expect(type.isError, type.text).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    const stop = await agent.client.callTool({ name: 'browser_stop_video', arguments: {} });
    const link = (stop.content as Content).find((x) => x.type === 'resource_link')!;
    file = Buffer.from(((await agent.client.readResource({ uri: link.uri! })).contents[0] as { blob: string }).blob, 'base64');
  });

  it('the click\'s target is marked and titled in frames before the first blue one, for most of the hold', async () => {
    const frames = await seen();
    const effect = frames.findIndex((f) => f.blue);
    const titled = frames.findIndex((f) => f.titled);
    const marked = frames.findIndex((f) => f.marked);
    expect(effect, 'the click turned the page blue').toBeGreaterThan(0);
    expect(titled, 'a callout was titled').toBeGreaterThanOrEqual(0);
    expect(titled).toBeLessThan(effect);
    expect(marked).toBeLessThan(effect);
    // Held a moment: the callout was up for most of its hold before the page changed.
    expect(frames[effect]!.atMs - frames[marked]!.atMs).toBeGreaterThan(HOLD_MS / 2);
  });

  it('the type\'s target is marked and titled in frames before the first green one', async () => {
    const frames = await seen();
    const effect = frames.findIndex((f) => f.green);
    const blue = frames.findIndex((f) => f.blue);
    expect(effect, 'the typing turned the page green').toBeGreaterThan(blue);
    const marked = frames.findIndex((f, i) => i > blue && f.markedNote);
    const titled = frames.findIndex((f, i) => i > blue && f.titled);
    expect(marked, 'the input was marked').toBeGreaterThan(blue);
    expect(marked).toBeLessThan(effect);
    expect(titled).toBeGreaterThan(blue);
    expect(titled).toBeLessThan(effect);
  });
});
