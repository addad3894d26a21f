import { describe, expect, it } from 'vitest';
import { driverRef, plainPageRefs, plainSubtreeRefs } from './main-refs.js';
import type { Tab } from './tabs.js';

const PAGE = `- generic [active] [ref=f51e1]:
  - button "Top" [ref=f51e2]
  - iframe [ref=f51e3]:
    - button "Inner" [ref=f7e2]
  - button "Again" [ref=f51e12]
  - link "x" [ref=f515e1]`;

describe('the main frame\'s refs are plain, as an agent reads them', () => {
  it('a page snapshot drops its main frame\'s prefix and keeps a subframe\'s', () => {
    const tab = {} as Tab;
    const plain = plainPageRefs(tab, PAGE);
    expect(plain).toContain('button "Top" [ref=e2]');
    expect(plain).toContain('button "Again" [ref=e12]');
    expect(plain).toContain('button "Inner" [ref=f7e2]');
    // Another frame whose number starts with the same digits is not the main frame.
    expect(plain).toContain('link "x" [ref=f515e1]');
  });

  it('a plain ref goes back to the driver with the main frame\'s prefix; a subframe\'s is as given', () => {
    const tab = {} as Tab;
    plainPageRefs(tab, PAGE);
    expect(driverRef(tab, 'e2')).toBe('f51e2');
    expect(driverRef(tab, 'f7e2')).toBe('f7e2');
    expect(plainSubtreeRefs(tab, '- button "Top" [ref=f51e2]')).toBe('- button "Top" [ref=e2]');
  });

  it('a page whose main frame has no prefix is left as it is, and the latest page snapshot wins', () => {
    const tab = {} as Tab;
    expect(plainPageRefs(tab, '- button "A" [ref=e1]')).toBe('- button "A" [ref=e1]');
    expect(driverRef(tab, 'e1')).toBe('e1');
    plainPageRefs(tab, '- button "B" [ref=f9e1]');
    expect(driverRef(tab, 'e1')).toBe('f9e1');
  });
});
