/**
 * browser_start_tracing / browser_stop_tracing answer a Playwright trace: a zip the agent reads
 * over MCP, holding the trace of what its calls did. A trace records the whole browser profile, so
 * it is refused while another seat has a tab open there.
 */
import { describe, expect } from 'vitest';
import { inflateRawSync } from 'node:zlib';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

const it = forgeTest({ toml: '[agent]\ncaps = ["devtools"]\n' }, {
  '/': '<html><head><title>Orders</title></head><body><h1>Orders</h1><button onclick="this.textContent=\'Refunded\'">Refund</button></body></html>',
});

let agent: Agent;

it.beforeAll(async ({ agentFor }) => {
  agent = await agentFor('default/trace/lead');
});

type Content = Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string; size?: number }>;

/** The files of a zip, by name, read from its central directory. */
function unzip(zip: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThan(0);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLen = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLen);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataAt, dataAt + size);
    out.set(name, method === 8 ? inflateRawSync(data) : data);
    at += 46 + nameLen + extra + comment;
  }
  return out;
}

describe('tracing answers a Playwright trace zip of the seat\'s calls', () => {
  it('stop answers a zip, read over MCP, whose trace holds the click and the page', async ({ pages }) => {
    const start = await agent.call('browser_start_tracing');
    expect(start.isError, start.text).toBe(false);
    await agent.call('browser_navigate', { url: pages.url });
    const click = await agent.call('browser_click', { element: 'Refund', target: 'role=button[name="Refund"]' });
    expect(click.isError, click.text).toBe(false);
    const r = await agent.client.callTool({ name: 'browser_stop_tracing', arguments: {} });
    const content = r.content as Content;
    expect(r.isError, content[0]?.text).toBeFalsy();
    const link = content.find((c) => c.type === 'resource_link');
    expect(link).toMatchObject({ mimeType: 'application/zip' });
    expect(link!.name).toMatch(/^trace-\d+\.zip$/);
    const read = await agent.client.readResource({ uri: link!.uri! });
    const zip = Buffer.from((read.contents[0] as { blob: string }).blob, 'base64');
    expect(zip.length).toBe(link!.size);
    const files = unzip(zip);
    const trace = files.get('trace.trace')?.toString('utf8') ?? '';
    expect(trace).toContain('"type":"context-options"');
    expect(trace).toContain('"method":"click"');
    expect(files.has('trace.network')).toBe(true);
    expect(files.get('trace.network')!.toString('utf8')).toContain(pages.origin);
  });

  it('a stop with no trace running is refused in words', async () => {
    const r = await agent.call('browser_stop_tracing');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('Tracing is not started');
  });

  it('a trace during which another seat\'s page loaded is discarded in words, not answered', async ({ pages, agentFor }) => {
    expect((await agent.call('browser_start_tracing')).isError).toBe(false);
    const other = await agentFor('default/trace/other');
    expect((await other.call('browser_navigate', { url: pages.url })).isError).toBe(false);
    const r = await agent.client.callTool({ name: 'browser_stop_tracing', arguments: {} });
    const content = r.content as Content;
    expect(r.isError).toBe(true);
    expect(content[0]?.text).toContain('the trace was discarded: default/trace/other opened a page');
    expect(content.some((c) => c.type === 'resource_link')).toBe(false);
  });

  it('tracing is refused while another seat has a tab open in the profile', async () => {
    const r = await agent.call('browser_start_tracing');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('default/trace/other has a tab open in it');
  });
});
