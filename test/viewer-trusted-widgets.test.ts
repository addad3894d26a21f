/**
 * Widgets that gate on trusted input work under the controller's hand: a `<select>` picked with
 * the mouse and with keys, a range slider dragged, an HTML5 drag and drop, the named keys (Tab,
 * arrows, Escape) as key events, and a wheel as a pixel delta.
 */
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { FRAME_FLAG_KEYFRAME, type InputEvent } from '../src/shared/protocol.js';

let forge: RunningServer;
let pages: TestPages;
let agent: Agent;
let v: TestViewer;

const PAGE = `<title>Widgets</title><style>body{margin:0;height:3000px;font:16px sans-serif}
#pick{position:absolute;left:40px;top:40px;width:200px;height:32px;font-size:16px}
#range{position:absolute;left:40px;top:120px;width:400px;margin:0}
#drag{position:absolute;left:40px;top:200px;width:100px;height:60px;background:#c93}
#drop{position:absolute;left:300px;top:200px;width:160px;height:100px;background:#39c}
#a,#b{position:absolute;top:340px;width:120px;height:30px}#a{left:40px}#b{left:200px}</style>
<select id="pick"><option>apple</option><option>banana</option><option>cherry</option><option>damson</option></select>
<input id="range" type="range" min="0" max="100" value="0">
<div id="drag" draggable="true">drag me</div><div id="drop">drop here</div>
<input id="a"><input id="b">
<script>
window.log = [];
const say = (s) => window.log.push(s);
document.getElementById('pick').addEventListener('change', (e) => e.isTrusted && say('picked ' + e.target.value));
document.getElementById('range').addEventListener('input', (e) => e.isTrusted && say('range ' + e.target.value));
document.getElementById('drag').addEventListener('dragstart', (e) => { e.dataTransfer.setData('text/plain', 'payload'); });
const drop = document.getElementById('drop');
drop.addEventListener('dragover', (e) => e.preventDefault());
drop.addEventListener('drop', (e) => { e.preventDefault(); say('dropped ' + e.dataTransfer.getData('text/plain') + (e.isTrusted ? ' trusted' : '')); });
document.addEventListener('keydown', (e) => e.isTrusted && ['Escape', 'ArrowDown', 'Tab'].includes(e.key) && say('key ' + e.key + ' on ' + (document.activeElement.id || 'body')));
</script>`;

const log = async (): Promise<string> => (await agent.call('browser_evaluate', { function: '() => JSON.stringify(window.log)' })).text;
const evaluate = async (fn: string): Promise<string> => (await agent.call('browser_evaluate', { function: fn })).text;
const send = (ev: InputEvent): void => v.send({ t: 'input', ev });
const click = (x: number, y: number): void => {
  send({ type: 'mouse', action: 'move', x, y });
  send({ type: 'mouse', action: 'down', x, y, button: 'left', buttons: 1, clickCount: 1 });
  send({ type: 'mouse', action: 'up', x, y, button: 'left', buttons: 0, clickCount: 1 });
};
const key = (k: string): void => { send({ type: 'key', action: 'down', key: k }); send({ type: 'key', action: 'up', key: k }); };
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/**
 * Clicks the select and waits for what a person waits for: a picture of its list, a patch painting
 * the rows under the select (from y 72 down) that came after the click. Chromium draws the list as
 * a window of its own, and the host's hand reaches it only once it is there. A keyframe (a whole
 * picture, as after the view's layout changed) is no sign of the list.
 */
const openList = async (): Promise<void> => {
  const before = v.frames.length;
  click(140, 56);
  const list = (f: TestViewer['frames'][number]): boolean => !(f.flags & FRAME_FLAG_KEYFRAME) && f.y <= 100 && f.y + f.h >= 130 && f.x <= 100 && f.x + f.w >= 200;
  await expect.poll(() => v.frames.slice(before).some(list), { timeout: 10_000 }).toBe(true);
};

/** Quiet between frames that says the page is painted and still, ms: a layout change repaints in bursts well inside it. */
const STILL_MS = 500;

/** Waits until no frame came for STILL_MS: the page laid out at the view's size and painted. */
const still = async (): Promise<void> => {
  const end = Date.now() + 10_000;
  for (let seen = -1; seen !== v.frames.length; await pause(STILL_MS)) {
    if (Date.now() > end) throw new Error(`the page kept painting for 10 s after the view attached (${v.frames.length} frames)`);
    seen = v.frames.length;
  }
};

const it = forgeTest({}, { '/': PAGE });

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  agent = await agentFor('default/widgets/lead');
  await agent.call('browser_navigate', { url: pages.url });
  v = await openViewer(forge.info.port, forge.info.viewer_token);
  v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  await v.next('view');
  v.send({ t: 'control', take: true });
  await v.next('view', (m) => m.controller === m.you);
  await v.waitFrames(1);
  // The page is laid out again at the view's size as the view attaches: a click before that
  // settles may land on a page still moving, and its repaint would pass for the select's list.
  await still();
});

it.afterAll(async () => {
  await v?.close();
});

describe('trusted widgets under the controller', () => {
  it('a select opened with a click takes an option picked with the arrow keys and Enter', async () => {
    await openList();
    key('ArrowDown');
    key('ArrowDown');
    key('Enter');
    await expect.poll(log, { timeout: 10_000 }).toContain('picked cherry');
  });

  it('a select opened with a click takes an option clicked in its list', async () => {
    await openList();
    // The list opens under the select (its top at 72), one 20-30 px row per option: 38 px down is
    // the second, banana, whatever the row height.
    click(100, 72 + 38);
    await expect.poll(log, { timeout: 10_000 }).toContain('picked banana');
  });

  it('a range slider follows a pressed drag', async () => {
    send({ type: 'mouse', action: 'move', x: 42, y: 128 });
    send({ type: 'mouse', action: 'down', x: 42, y: 128, button: 'left', buttons: 1, clickCount: 1 });
    for (let x = 60; x <= 240; x += 30) send({ type: 'mouse', action: 'move', x, y: 128, button: 'left', buttons: 1 });
    send({ type: 'mouse', action: 'up', x: 240, y: 128, button: 'left', buttons: 0, clickCount: 1 });
    await expect.poll(async () => Math.max(0, ...[...(await log()).matchAll(/range (\d+)/g)].map((m) => Number(m[1]))), { timeout: 10_000 }).toBeGreaterThan(40);
  });

  it('an HTML5 drag and drop carries its data to the drop zone', async () => {
    send({ type: 'mouse', action: 'move', x: 90, y: 230 });
    send({ type: 'mouse', action: 'down', x: 90, y: 230, button: 'left', buttons: 1, clickCount: 1 });
    for (let i = 1; i <= 10; i++) {
      send({ type: 'mouse', action: 'move', x: 90 + i * 28, y: 230 + i * 2, button: 'left', buttons: 1 });
      await pause(30);
    }
    send({ type: 'mouse', action: 'up', x: 370, y: 250, button: 'left', buttons: 0, clickCount: 1 });
    await expect.poll(log, { timeout: 10_000 }).toContain('dropped payload trusted');
  });

  it('Tab moves the focus, and Escape and the arrows arrive as key events', async () => {
    click(100, 355);
    await expect.poll(() => evaluate("() => document.activeElement.id"), { timeout: 10_000 }).toContain('"a"');
    key('Tab');
    key('Escape');
    key('ArrowDown');
    await expect.poll(log, { timeout: 10_000 }).toContain('key Tab on a');
    await expect.poll(log, { timeout: 10_000 }).toContain('key Escape on b');
    await expect.poll(log, { timeout: 10_000 }).toContain('key ArrowDown on b');
  });

  it('a wheel scrolls the page by its pixel delta', async () => {
    send({ type: 'wheel', x: 600, y: 500, dx: 0, dy: 400 });
    await expect.poll(async () => Number(/### Result\n"?(\d+)/.exec(await evaluate('() => String(Math.round(window.scrollY))'))?.[1] ?? 0), { timeout: 10_000 }).toBe(400);
  });
});
