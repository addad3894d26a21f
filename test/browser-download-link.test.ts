import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, startFileRig, type FileRig } from './helpers/file-pages.js';
import { refOf } from './helpers/tool-pages.js';

let rig: FileRig;

beforeAll(async () => {
  rig = await startFileRig('default/dl/lead', '/downloads');
});

afterAll(async () => {
  await rig?.stop();
});

type Content = Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string; size?: number }>;

describe('a download that finished on the seat\'s tab is a file its next tool result links', () => {
  it('the link reads the download\'s own bytes, once, in the session that owns the tab', async () => {
    const snap = await rig.a.call('browser_snapshot');
    let content = (await rig.a.client.callTool({ name: 'browser_click', arguments: { target: refOf(snap.text, 'link', 'report.csv') } })).content as Content;
    // The download may finish after the click answered: the seat's next call carries it then.
    for (let i = 0; i < 20 && !content.some((c) => c.type === 'resource_link'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      content = (await rig.a.client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } })).content as Content;
    }
    const link = content.find((c) => c.type === 'resource_link');
    expect(link).toMatchObject({ name: 'report.csv', mimeType: 'text/csv', size: 12345 });
    const read = (await rig.a.client.readResource({ uri: link!.uri! })).contents[0] as { text: string };
    expect(Buffer.from(read.text).equals(downloadBytes('report.csv', 12345))).toBe(true);
    // Linked once: the next result does not link it again.
    const after = (await rig.a.client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } })).content as Content;
    expect(after.some((c) => c.type === 'resource_link')).toBe(false);
  });
});
