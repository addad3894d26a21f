import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import type { ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;
let b: Agent;

const it = toolPagesTest({ toml: '[agent]\ncaps = ["pdf"]\n' }, { '/': '<html><head><title>Invoice</title></head><body><h1>Invoice 1042</h1><p>Total 12.00</p></body></html>' });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/pdf/lead');
  b = await agentFor('default/pdf/other');
  await a.call('browser_navigate', { url: pages.url });
});

type Content = Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string; size?: number }>;

describe('browser_pdf_save answers the printed page as a file the agent reads over MCP', () => {
  let uri = '';

  it('the answer links a PDF, named as asked, that resources/read returns whole', async () => {
    const r = await a.client.callTool({ name: 'browser_pdf_save', arguments: { filename: 'invoice.pdf' } });
    const content = r.content as Content;
    expect(r.isError, content[0]?.text).toBeFalsy();
    const link = content.find((c) => c.type === 'resource_link');
    expect(link).toMatchObject({ name: 'invoice.pdf', mimeType: 'application/pdf' });
    uri = link!.uri!;
    const read = await a.client.readResource({ uri });
    const blob = (read.contents[0] as { blob?: string }).blob!;
    const bytes = Buffer.from(blob, 'base64');
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.length).toBe(link!.size);
    expect((await a.client.listResources()).resources.map((x) => x.uri)).toContain(uri);
  });

  it('another seat\'s session neither lists nor reads the file', async () => {
    expect((await b.client.listResources()).resources.map((x) => x.uri)).not.toContain(uri);
    await expect(b.client.readResource({ uri })).rejects.toThrow(/not one of this session's files/);
  });
});
