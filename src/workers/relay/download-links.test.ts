import { describe, expect, it } from 'vitest';
import { signDownload, verifyDownload, verifyLink } from './links.js';
import { LinkKeys, linkKeyPair, publishedKey } from './link-keys.js';

const FILE = 'default/default-downloads/dl-0a1b2c3d-report.csv';
const alpha = linkKeyPair();
const beta = linkKeyPair();

describe('download links', () => {
  it('a signed link names its kept file (and on a cluster its node) until it expires, checked with its signer\'s key', () => {
    const now = Date.now();
    const own = new LinkKeys(alpha.publicKey);
    const token = signDownload(alpha.privateKey, { file: FILE, name: 'report.csv' }, 10, now);
    expect(verifyDownload(own, token, now)).toMatchObject({ file: FILE, name: 'report.csv' });
    expect(verifyDownload(own, token, now)?.node).toBeUndefined();
    expect(verifyDownload(own, token, now + 11 * 60_000)).toBeUndefined();
    const onNode = signDownload(alpha.privateKey, { file: FILE, name: 'report.csv', node: 'alpha' }, 10, now);
    const gamma = new LinkKeys(linkKeyPair().publicKey, 'gamma');
    gamma.learn('alpha', publishedKey(alpha.publicKey));
    expect(verifyDownload(gamma, onNode, now)).toMatchObject({ file: FILE, node: 'alpha' });
  });

  it('a link signed with another key, by another node, naming an unknown node, altered, or of another kind does not verify', () => {
    const own = new LinkKeys(alpha.publicKey);
    const token = signDownload(alpha.privateKey, { file: FILE, name: 'a' }, 10);
    expect(verifyDownload(new LinkKeys(beta.publicKey), token)).toBeUndefined();
    const gamma = new LinkKeys(linkKeyPair().publicKey, 'gamma');
    gamma.learn('alpha', publishedKey(alpha.publicKey));
    gamma.learn('beta', publishedKey(beta.publicKey));
    expect(verifyDownload(gamma, signDownload(beta.privateKey, { file: FILE, name: 'a', node: 'alpha' }, 10))).toBeUndefined();
    expect(verifyDownload(gamma, signDownload(alpha.privateKey, { file: FILE, name: 'a', node: 'delta' }, 10))).toBeUndefined();
    // A link naming no node is checked with the door's own key: another node's signature is not it.
    expect(verifyDownload(gamma, token)).toBeUndefined();
    const [kind, , exp, sig] = token.split('.');
    const forged = [kind, Buffer.from(JSON.stringify({ f: '../../../../etc/passwd', n: 'x' })).toString('base64url'), exp, sig].join('.');
    expect(verifyDownload(own, forged)).toBeUndefined();
    const renamed = [kind, Buffer.from(JSON.stringify({ f: FILE, n: 'a', o: 'alpha' })).toString('base64url'), exp, sig].join('.');
    expect(verifyDownload(new LinkKeys(alpha.publicKey, 'alpha'), renamed)).toBeUndefined();
    expect(verifyLink(own, token)).toBeUndefined();
  });
});
