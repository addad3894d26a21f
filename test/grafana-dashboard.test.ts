/**
 * The Grafana dashboard in docs/ reads only names /metrics really carries: against a real server
 * with a host up, a watched tab and a watched terminal, every metric its panels' queries name is in the
 * scrape, so an operator who imports it sees no empty panel for a renamed metric.
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { Agent, RunningServer } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let agent: Agent;
let viewer: TestViewer;
let termViewer: TestViewer;

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/bash"\n' }, { '/': '<title>Grafana</title><h1>metrics</h1>' });

it.beforeAll(async ({ forge: server, pages: served, agentFor }) => {
  forge = server;
  pages = served;
  agent = await agentFor('default/graf/lead');
  await agent.call('browser_navigate', { url: pages.url });
  await agent.call('terminal__run', { command: 'echo up' });
  viewer = await openViewer(server.info.port, server.info.viewer_token);
  viewer.send({ t: 'attach', tab: 1, w: 800, h: 600 });
  await viewer.waitFrames(1);
  // A watched terminal, so its per-terminal series carry a sample.
  termViewer = await openViewer(server.info.port, server.info.viewer_token);
  termViewer.send({ t: 'term_attach', seat: 'default/graf/lead', cols: 80, rows: 24 });
  await termViewer.next('term_view');
  await agent.call('terminal__run', { command: 'echo watched' });
});

it.afterAll(async () => {
  await viewer?.close();
  await termViewer?.close();
});

describe('the Grafana dashboard', () => {
  it('every metric its queries name is one /metrics serves', async () => {
    const board = JSON.parse(readFileSync('docs/grafana-forge.json', 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const names = new Set(board.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\bforge_[a-z_]+/g) ?? [])));
    expect(names.size).toBeGreaterThan(10);
    // The gauges reach /metrics from the main thread a second at a time.
    await new Promise((r) => setTimeout(r, 2500));
    const res = await fetch(`http://127.0.0.1:${forge.info.port}/metrics`, { headers: { authorization: `Bearer ${forge.info.token}` } });
    const served = new Set((await res.text()).split('\n').filter((l) => l && !l.startsWith('#')).map((l) => /^[a-z_]+/.exec(l)![0]));
    expect([...names].filter((n) => !served.has(n))).toEqual([]);
  });
});
