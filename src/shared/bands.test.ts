import { describe, expect, it } from 'vitest';
import { PATCH_GRID_PX, stripsOf } from './bands.js';

describe('stripsOf', () => {
  it('cuts a whole frame into strips on the patch grid that cover it exactly, one below the other', () => {
    const strips = stripsOf({ x: 0, y: 0, w: 1280, h: 720 }, 2);
    expect(strips).toEqual([{ x: 0, y: 0, w: 1280, h: 368 }, { x: 0, y: 368, w: 1280, h: 352 }]);
    expect(strips[0]!.h % PATCH_GRID_PX).toBe(0);
  });

  it('keeps a band\'s own offset, and never cuts a strip thinner than the grid', () => {
    expect(stripsOf({ x: 32, y: 48, w: 640, h: 20 }, 4)).toEqual([{ x: 32, y: 48, w: 640, h: 16 }, { x: 32, y: 64, w: 640, h: 4 }]);
  });

  it('gives the rectangle back whole when asked for one strip', () => {
    expect(stripsOf({ x: 0, y: 16, w: 800, h: 600 }, 1)).toEqual([{ x: 0, y: 16, w: 800, h: 600 }]);
  });
});
