/**
 * A call written as Playwright MCP documents it runs on forge: `filename` on the reading tools
 * keeps the text as a file the agent reads over MCP, `boxes` gives the snapshot its boxes,
 * `scale` and the vision tools' `element` are taken, and a target may be Playwright locator code.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const PAGE = `<html><head><title>Orders</title></head><body>
  <button id="count" style="position:absolute;left:20px;top:40px;width:120px;height:30px" onclick="this.textContent = 'Clicked ' + (++window.n)">Count</button>
  <script>window.n = 0; console.log('ready to count'); fetch('/api/orders');</script></body></html>`;

const it = toolPagesTest({ toml: '[agent]\ncaps = ["vision"]\n' }, {
  '/': PAGE,
  '/api/orders': { body: '{"orders":[1,2]}', type: 'application/json' },
  '/framed': '<html><body><button onclick="this.textContent = \'Top hit\'">Top</button><iframe src="/inner"></iframe></body></html>',
  '/inner': '<html><body><button onclick="this.textContent = \'Inner hit\'">Inner</button></body></html>',
});

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/pwargs/lead');
});

type Content = Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string; size?: number }>;

/** Calls `tool` with `args` and answers the text of the file its answer links. */
async function keptText(tool: string, args: Record<string, unknown>): Promise<{ said: string; name?: string; text: string }> {
  const r = await a.client.callTool({ name: tool, arguments: args });
  const content = r.content as Content;
  expect(r.isError, content[0]?.text).toBeFalsy();
  const link = content.find((c) => c.type === 'resource_link');
  expect(link, content[0]?.text).toBeDefined();
  const read = await a.client.readResource({ uri: link!.uri! });
  const text = (read.contents[0] as { text?: string }).text ?? '';
  expect(Buffer.byteLength(text)).toBe(link!.size);
  return { said: content[0]?.text ?? '', name: link!.name, text };
}

describe('Playwright MCP\'s arguments are taken as it documents them', () => {
  it.for([
    ['browser_snapshot', {}, 'snap.md', 'button "Count"'],
    ['browser_console_messages', { level: 'info' }, 'console.log', 'ready to count'],
    ['browser_network_requests', {}, 'requests.txt', '/api/orders'],
    ['browser_network_request', { index: 1, part: 'response-body' }, 'orders.json', '"orders":[1,2]'],
    ['browser_evaluate', { function: '() => "x".repeat(30000)' }, 'long.txt', 'x'.repeat(30000)],
  ] as const)('%s with filename keeps its text as a file the agent reads, and answers its link instead', async ([tool, args, filename, holds]) => {
    await a.call('browser_navigate', { url: pages.url });
    const req = tool === 'browser_network_request' ? await a.call('browser_network_requests', { filter: 'orders' }) : undefined;
    const index = req ? Number(/(\d+)\. \[GET\] \S+\/api\/orders/.exec(req.text)?.[1]) : undefined;
    const kept = await keptText(tool, { ...args, ...(index ? { index } : {}), filename });
    expect(kept.name).toBe(filename);
    expect(kept.said).toMatch(new RegExp(`kept as ${filename.replace('.', '\\.')}, \\d+ bytes, linked below`));
    expect(kept.said).not.toContain(holds);
    expect(kept.text).toContain(holds);
  });

  it('browser_snapshot with boxes gives each element its bounding box in CSS px', async () => {
    await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_snapshot', { boxes: true });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/button "Count" \[ref=(?:f\d+)?e\d+\][^\n]*\[box=20,40,120,30\]/);
  });

  it('the main frame\'s elements are e1, e2… after any navigation, as on Playwright MCP\'s fresh page; a subframe\'s keep their frame', async () => {
    // After a few documents the driver numbers the tab's main frame past the first (f<N>e<M>).
    for (let i = 0; i < 3; i++) await a.call('browser_navigate', { url: pages.url });
    const snap = await a.call('browser_navigate', { url: `${pages.origin}/framed` });
    const top = /button "Top" \[ref=(e\d+)\]/.exec(snap.text)?.[1];
    const inner = /button "Inner" \[ref=(f\d+e\d+)\]/.exec(snap.text)?.[1];
    expect(top, snap.text).toBeDefined();
    expect(inner, snap.text).toBeDefined();
    expect((await a.call('browser_click', { target: top })).text).toContain('Top hit');
    expect((await a.call('browser_click', { target: inner })).text).toContain('Inner hit');
  });

  it('a target written as Playwright locator code clicks the element it names', async () => {
    await a.call('browser_navigate', { url: pages.url });
    const r = await a.call('browser_click', { element: 'Count', target: "getByRole('button', { name: 'Count' })" });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Clicked 1');
  });

  it('take_screenshot takes scale, and the vision tools take element as words', async () => {
    await a.call('browser_navigate', { url: pages.url });
    const shot = await a.client.callTool({ name: 'browser_take_screenshot', arguments: { scale: 'device', type: 'png' } });
    expect(shot.isError, (shot.content as Content)[0]?.text).toBeFalsy();
    expect((shot.content as Content).some((c) => c.type === 'image')).toBe(true);
    const click = await a.call('browser_mouse_click_xy', { element: 'the Count button', x: 60, y: 50 });
    expect(click.isError, click.text).toBe(false);
    expect(click.text).toContain('Clicked 1');
  });
});
