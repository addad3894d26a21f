/**
 * A viewer whose decoder fell behind drops its picture and asks for a keyframe: the relay sends it
 * no patch until a fresh keyframe, so the picture never mixes a patch onto a frame it lacks.
 */
import { describe, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer, Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { FRAME_FLAG_KEYFRAME } from '../src/shared/protocol.js';

const PAGES = process.env.FORGE_PAGES ?? join(process.cwd(), 'bench', 'pages');

let forge: RunningServer;
let pages: TestPages;
let agent: Agent;
let viewer: TestViewer;

const it = forgeTest({}, {
  '/simple.html': readFileSync(join(PAGES, 'simple.html'), 'utf8'),
  '/stamp.js': readFileSync(join(PAGES, 'stamp.js'), 'utf8'),
});

it.beforeAll(async ({ forge: f, pages: p, agentFor }) => {
  forge = f;
  pages = p;
  agent = await agentFor('default/resync/lead');
  await agent.call('browser_navigate', { url: `${pages.origin}/simple.html` });
  viewer = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await viewer?.close();
});

describe('a viewer that fell behind', () => {
  it('gets no patch after asking for a keyframe until the keyframe comes', async () => {
    viewer.send({ t: 'attach', w: 800, h: 600 });
    await viewer.next('view');
    await viewer.waitFrames(20, 20_000);
    // The page patches small bands: patches flow.
    expect(viewer.frames.some((f) => !(f.flags & FRAME_FLAG_KEYFRAME))).toBe(true);
    const before = viewer.frames.length;
    viewer.send({ t: 'keyframe' });
    await viewer.waitFrames(before + 10, 20_000);
    const after = viewer.frames.slice(before);
    const firstKey = after.findIndex((f) => (f.flags & FRAME_FLAG_KEYFRAME) !== 0);
    expect(firstKey).toBeGreaterThanOrEqual(0);
    // Anything before the keyframe was already on the wire when the ask landed: a band of a frame
    // sent before it, never a patch on a later frame.
    const lastSeqBefore = viewer.frames[before - 1]!.seq;
    for (const f of after.slice(0, firstKey)) expect(f.seq).toBeLessThanOrEqual(lastSeqBefore + 1);
    // The relay answers the ask itself: nothing comes back as an unknown message.
    expect(viewer.messages.some((m) => m.t === 'error' && m.for === 'keyframe')).toBe(false);
  });
});
