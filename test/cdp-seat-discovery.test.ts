/**
 * The seat's CDP endpoint driven the way Puppeteer drives a browser socket (chrome-remote-interface
 * at browser level): Target.setDiscoverTargets works and announces the seat's own tabs only — the
 * ones it has, the ones it creates (owned by the seat, in its browser_tabs), their end — never
 * another seat's; a target it creates is attached flat and driven; Browser.close and another
 * seat's target are refused in words.
 */
import { describe, expect } from 'vitest';
import CDP, { type CdpClient } from 'chrome-remote-interface';
import type { Agent } from './helpers/server.js';
import { cdpUrl } from './helpers/cdp-socket.js';
import { forgeTest } from './fixtures.js';

const LEAD = 'default/disc/lead';
const OTHER = 'default/disc/other';
let lead: Agent;
let other: Agent;
let origin: string;
let port: number;
let token: string;
let client: CdpClient | undefined;

interface TargetInfo { targetId: string; type: string; title: string; url: string }
const created: TargetInfo[] = [];
const destroyed: string[] = [];

const it = forgeTest({}, {
  '/mine': '<title>Mine</title>mine',
  '/theirs': '<title>Theirs</title>theirs',
  '/later': '<title>Theirs later</title>later',
  '/made': '<title>Made over CDP</title>made',
});

it.beforeAll(async ({ forge, pages, agentFor }) => {
  origin = pages.origin;
  port = forge.info.port;
  token = forge.info.token;
  lead = await agentFor(LEAD);
  other = await agentFor(OTHER);
  await lead.call('browser_navigate', { url: `${origin}/mine` });
  await other.call('browser_navigate', { url: `${origin}/theirs` });
});

it.afterAll(async () => {
  await client?.close().catch(() => undefined);
});

/** Waits until `ok` holds, up to 10 s. */
async function until(ok: () => boolean | Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (!(await ok())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** The error a command was refused with, or '' when it was not. */
async function refused(c: CdpClient, method: string, params: object = {}): Promise<string> {
  try { await c.send(method, params); return ''; } catch (e) { return String((e as Error).message ?? e) + JSON.stringify((e as { response?: unknown }).response ?? ''); }
}

describe('Target discovery on the seat\'s endpoint', () => {
  it('setDiscoverTargets answers and announces the seat\'s own tab, not another seat\'s', async () => {
    client = await CDP({ target: cdpUrl(port, '/cdp', { seat: LEAD, token }), local: true });
    client.on('Target.targetCreated', (p) => created.push((p as { targetInfo: TargetInfo }).targetInfo));
    client.on('Target.targetDestroyed', (p) => destroyed.push((p as { targetId: string }).targetId));
    // Puppeteer's connect asks for the browser's contexts first.
    await client.send('Target.getBrowserContexts');
    await client.send('Target.setDiscoverTargets', { discover: true });
    expect(created.map((t) => t.title)).toEqual(['Mine']);
    const { targetInfos } = (await client.send('Target.getTargets')) as { targetInfos: TargetInfo[] };
    expect(targetInfos.map((t) => t.title)).toEqual(['Mine']);
  });

  it('a tab another seat opens meanwhile is not announced', async () => {
    await other.call('browser_tabs', { action: 'new', url: `${origin}/later` });
    await new Promise((r) => setTimeout(r, 1000));
    expect(created.map((t) => t.url)).not.toContain(`${origin}/later`);
  });

  it('a target it creates is announced, the seat\'s own tab, attached flat and driven', async () => {
    const { targetId } = (await client!.send('Target.createTarget', { url: `${origin}/made` })) as { targetId: string };
    expect(created.map((t) => t.targetId)).toContain(targetId);
    const { sessionId } = (await client!.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    let title = '';
    expect(await until(async () => {
      const r = (await client!.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, sessionId)) as { result: { value?: string } };
      title = r.result.value ?? '';
      return title === 'Made over CDP';
    })).toBe(true);
    const list = async (): Promise<string> => (await lead.call('browser_tabs', { action: 'list' })).text;
    expect(await until(async () => /Made over CDP · .*\/made · page p-[0-9a-f]{8} · owner default\/disc\/lead/.test(await list()))).toBe(true);
    expect((await other.call('browser_tabs', { action: 'list' })).text).not.toContain('/made');

    await client!.send('Target.closeTarget', { targetId });
    expect(await until(() => destroyed.includes(targetId))).toBe(true);
    expect(await until(async () => !(await list()).includes('/made'))).toBe(true);
  });

  it('refuses Browser.close and another seat\'s targets in words', async () => {
    expect(await refused(client!, 'Browser.close')).toContain('Browser.close is refused: the browser is shared');
    const o = await CDP({ target: cdpUrl(port, '/cdp', { seat: OTHER, token }), local: true });
    try {
      const { targetInfos } = (await o.send('Target.getTargets')) as { targetInfos: TargetInfo[] };
      expect(targetInfos.length).toBe(2);
      for (const t of targetInfos) {
        expect(await refused(client!, 'Target.attachToTarget', { targetId: t.targetId, flatten: true })).toContain(`which belongs to ${OTHER}`);
        expect(await refused(client!, 'Target.closeTarget', { targetId: t.targetId })).toContain(`which belongs to ${OTHER}`);
      }
    } finally {
      await o.close();
    }
    expect((await other.call('browser_snapshot')).text).toContain('later');
  });
});
