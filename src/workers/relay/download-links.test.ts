import { describe, expect, it } from 'vitest';
import { signDownload, verifyDownload, verifyLink } from './links.js';

const FILE = 'default/default-downloads/dl-0a1b2c3d-report.csv';

describe('download links', () => {
  it('a signed link names its kept file (and on a cluster its node) until it expires', () => {
    const now = Date.now();
    const token = signDownload('secret', { file: FILE, name: 'report.csv' }, 10, now);
    expect(verifyDownload('secret', token, now)).toMatchObject({ file: FILE, name: 'report.csv' });
    expect(verifyDownload('secret', token, now)?.node).toBeUndefined();
    expect(verifyDownload('secret', token, now + 11 * 60_000)).toBeUndefined();
    const onNode = signDownload('secret', { file: FILE, name: 'report.csv', node: 'alpha' }, 10, now);
    expect(verifyDownload('secret', onNode, now)).toMatchObject({ file: FILE, node: 'alpha' });
  });

  it('a link signed with another secret, altered, or of another kind does not verify', () => {
    const token = signDownload('secret', { file: FILE, name: 'a' }, 10);
    expect(verifyDownload('other', token)).toBeUndefined();
    const [kind, , exp, mac] = token.split('.');
    const forged = [kind, Buffer.from(JSON.stringify({ f: '../../../../etc/passwd', n: 'x' })).toString('base64url'), exp, mac].join('.');
    expect(verifyDownload('secret', forged)).toBeUndefined();
    expect(verifyLink('secret', token)).toBeUndefined();
  });
});
