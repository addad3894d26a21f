/**
 * The screen model's internals forge reads (scroll region, shifted set, parser state) are where
 * this version of @xterm/headless keeps them: a version that moves one fails here by name.
 */
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { charsetLevel, parserAtGround, scrollRegion } from './model-internals.js';

const write = (t: InstanceType<typeof xtermHeadless.Terminal>, d: string): Promise<void> => new Promise((r) => t.write(d, r));

describe('the screen model\'s internals', () => {
  it('are read as the model holds them', async () => {
    const t = new xtermHeadless.Terminal({ cols: 80, rows: 24, allowProposedApi: true });
    expect(scrollRegion(t)).toEqual({ top: 0, bottom: 23 });
    expect(parserAtGround(t)).toBe(true);
    expect(charsetLevel(t)).toBe(0);
    await write(t, '\x1b[3;8r\x0e');
    expect(scrollRegion(t)).toEqual({ top: 2, bottom: 7 });
    expect(charsetLevel(t)).toBe(1);
    await write(t, '\x1b[3');
    expect(parserAtGround(t)).toBe(false);
    await write(t, '1m');
    expect(parserAtGround(t)).toBe(true);
    t.dispose();
  });
});
