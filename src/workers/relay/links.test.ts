import { describe, expect, it } from 'vitest';
import { signLink, verifyLink, HANDOFF_LINK_MINUTES } from './links.js';
import { LinkKeys, linkKeyPair, publishedKey } from './link-keys.js';

const alpha = linkKeyPair();
const beta = linkKeyPair();
/** What node gamma knows: its own key, and alpha's and beta's as published. */
function gammaKeys(): LinkKeys {
  const keys = new LinkKeys(linkKeyPair().publicKey, 'gamma');
  keys.learn('alpha', publishedKey(alpha.publicKey));
  keys.learn('beta', publishedKey(beta.publicKey));
  return keys;
}

describe('hand-off links', () => {
  it('a signed link verifies to its hand-off with its signer\'s public key until it expires', () => {
    const now = Date.now();
    const own = new LinkKeys(alpha.publicKey);
    const { token } = signLink(alpha.privateKey, 'ho-1a', now);
    expect(verifyLink(own, token, now)?.handoff).toBe('ho-1a');
    expect(verifyLink(own, token, now + (HANDOFF_LINK_MINUTES * 60 - 5) * 1000)?.handoff).toBe('ho-1a');
    expect(verifyLink(own, token, now + (HANDOFF_LINK_MINUTES * 60 + 5) * 1000)).toBeUndefined();
  });

  it('a link naming a node verifies with that node\'s published key on another node', () => {
    const { token } = signLink(alpha.privateKey, 'ho-1a-alpha');
    expect(verifyLink(gammaKeys(), token)?.handoff).toBe('ho-1a-alpha');
    expect(verifyLink(new LinkKeys(alpha.publicKey, 'alpha'), token)?.handoff).toBe('ho-1a-alpha');
  });

  it('a link signed with another key, by another node, naming an unknown node, or altered does not verify', () => {
    const { token } = signLink(alpha.privateKey, 'ho-1a');
    expect(verifyLink(new LinkKeys(beta.publicKey), token)).toBeUndefined();
    // beta signs a link to alpha's hand-off: checked with alpha's key, it is not valid.
    expect(verifyLink(gammaKeys(), signLink(beta.privateKey, 'ho-1a-alpha').token)).toBeUndefined();
    // A node whose key nobody published: nothing it names opens.
    expect(verifyLink(gammaKeys(), signLink(alpha.privateKey, 'ho-1a-delta').token)).toBeUndefined();
    const own = new LinkKeys(alpha.publicKey);
    expect(verifyLink(own, token.replace('ho-1a', 'ho-2a'))).toBeUndefined();
    const [h, id, exp, sig] = token.split('.');
    expect(verifyLink(own, [h, id, Number(exp) + 60, sig].join('.'))).toBeUndefined();
    expect(verifyLink(own, [h, id, exp, `${sig!.slice(0, -3)}abc`].join('.'))).toBeUndefined();
    expect(verifyLink(own, 'garbage')).toBeUndefined();
  });

  it('a node\'s own links are checked with its own key, whatever was published in its name', () => {
    const keys = new LinkKeys(alpha.publicKey, 'alpha');
    keys.learn('alpha', publishedKey(beta.publicKey));
    expect(verifyLink(keys, signLink(beta.privateKey, 'ho-1a-alpha').token)).toBeUndefined();
    expect(verifyLink(keys, signLink(alpha.privateKey, 'ho-1a-alpha').token)?.handoff).toBe('ho-1a-alpha');
  });

  it('a node that published something other than a key, or took its key back, has no links that open', () => {
    const keys = gammaKeys();
    const { token } = signLink(beta.privateKey, 'ho-1a-beta');
    expect(verifyLink(keys, token)?.handoff).toBe('ho-1a-beta');
    expect(keys.learn('beta', 'not a key')).toBe(false);
    expect(verifyLink(keys, token)).toBeUndefined();
    expect(keys.learn('beta', publishedKey(beta.publicKey))).toBe(true);
    expect(keys.learn('beta', undefined)).toBe(true);
    expect(verifyLink(keys, token)).toBeUndefined();
  });
});
