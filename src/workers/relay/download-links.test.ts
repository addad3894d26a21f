import { describe, expect, it } from 'vitest';
import { signDownload, verifyDownload, verifyLink } from './links.js';

describe('download links', () => {
  it('a signed link names its file until it expires', () => {
    const now = Date.now();
    const token = signDownload('secret', { path: '/state/p-downloads/dl-1-report.csv', name: 'report.csv' }, 10, now);
    expect(verifyDownload('secret', token, now)).toMatchObject({ path: '/state/p-downloads/dl-1-report.csv', name: 'report.csv' });
    expect(verifyDownload('secret', token, now + 11 * 60_000)).toBeUndefined();
  });

  it('a link signed with another secret, altered, or of another kind does not verify', () => {
    const token = signDownload('secret', { path: '/a', name: 'a' }, 10);
    expect(verifyDownload('other', token)).toBeUndefined();
    const [kind, , exp, mac] = token.split('.');
    const forged = [kind, Buffer.from(JSON.stringify({ p: '/etc/passwd', n: 'x' })).toString('base64url'), exp, mac].join('.');
    expect(verifyDownload('secret', forged)).toBeUndefined();
    expect(verifyLink('secret', token)).toBeUndefined();
  });
});
