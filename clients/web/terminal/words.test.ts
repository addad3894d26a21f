import { describe, expect, it } from 'vitest';
import { seatNames } from './words.js';

describe('seatNames', () => {
  it('names a seat by its label where the label is unique, and by project and label where two share it', () => {
    const names = seatNames(['acme/shop/lead', 'acme/blog/lead', 'acme/shop/helper']);
    expect(names('acme/shop/lead')).toBe('shop/lead');
    expect(names('acme/blog/lead')).toBe('blog/lead');
    expect(names('acme/shop/helper')).toBe('helper');
  });

  it('a seat alone keeps its label, and a seat not in the list is named by its label', () => {
    const names = seatNames(['acme/shop/lead']);
    expect(names('acme/shop/lead')).toBe('lead');
    expect(names('acme/other/worker')).toBe('worker');
  });
});
