import { describe, expect, it } from 'vitest';
import { signLink, verifyLink, HANDOFF_LINK_MINUTES } from './links.js';

describe('hand-off links', () => {
  it('a signed link verifies to its hand-off until it expires', () => {
    const now = Date.now();
    const { token } = signLink('secret', 'ho-1', now);
    expect(verifyLink('secret', token, now)?.handoff).toBe('ho-1');
    expect(verifyLink('secret', token, now + (HANDOFF_LINK_MINUTES * 60 - 5) * 1000)?.handoff).toBe('ho-1');
    expect(verifyLink('secret', token, now + (HANDOFF_LINK_MINUTES * 60 + 5) * 1000)).toBeUndefined();
  });

  it('a link signed with another secret, or altered, does not verify', () => {
    const { token } = signLink('secret', 'ho-1');
    expect(verifyLink('other', token)).toBeUndefined();
    expect(verifyLink('secret', token.replace('ho-1', 'ho-2'))).toBeUndefined();
    expect(verifyLink('secret', 'garbage')).toBeUndefined();
  });
});
