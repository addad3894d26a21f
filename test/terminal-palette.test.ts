/**
 * The terminal's palette is part of the client's token set (clients/web/theme.ts), complete in
 * each palette, and legible on its own ground: the text, the cursor and every colour but black
 * clear WCAG's contrast bars, in the dark palette and the light one alike; so does the page's
 * own text on its ground.
 */
import { describe, expect, it } from 'vitest';
import { THEME_KEYS, tokenName } from '../clients/web/terminal/theme.js';
import { PALETTES } from '../clients/web/theme.js';

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

for (const [name, palette] of Object.entries(PALETTES)) {
  const token = (key: string): string | undefined => palette[tokenName(key).slice(2)];
  describe(`the ${name} palette`, () => {
    it('defines every terminal theme key as a token', () => {
      expect(THEME_KEYS.filter((k) => !/^#[0-9a-f]{6}$/i.test(token(k) ?? ''))).toEqual([]);
    });

    it('defines the same tokens as every other palette, so no colour is left from the last one', () => {
      expect(Object.keys(palette).sort()).toEqual(Object.keys(PALETTES.dark).sort());
    });

    it('text reads at AAA on the ground, every colour but black at AA, the dim ones and the cursor at 3:1', () => {
      const ground = token('background')!;
      expect(contrast(token('foreground')!, ground)).toBeGreaterThanOrEqual(7);
      expect(contrast(token('cursor')!, ground)).toBeGreaterThanOrEqual(3);
      // Selected text stays readable: the foreground on the selection.
      expect(contrast(token('foreground')!, token('selectionBackground')!)).toBeGreaterThanOrEqual(4.5);
      const low: string[] = [];
      for (const key of THEME_KEYS.filter((k) => /^(bright)?(red|green|yellow|blue|magenta|cyan|white)$/i.test(k))) {
        if (contrast(token(key)!, ground) < 4.5) low.push(`${key} ${contrast(token(key)!, ground).toFixed(2)}`);
      }
      expect(low).toEqual([]);
      // Bright black is the dim colour (comments, hints): large-text contrast at least.
      expect(contrast(token('brightBlack')!, ground)).toBeGreaterThanOrEqual(3);
    });

    it('the page\'s text reads at AAA on its ground and on a panel, its muted words and accent at AA', () => {
      for (const ground of [palette.bg!, palette.panel!]) {
        expect(contrast(palette.fg!, ground)).toBeGreaterThanOrEqual(7);
        expect(contrast(palette.muted!, ground)).toBeGreaterThanOrEqual(4.5);
        expect(contrast(palette.accent!, ground)).toBeGreaterThanOrEqual(4.5);
        expect(contrast(palette.refuse!, ground)).toBeGreaterThanOrEqual(4.5);
      }
      expect(contrast(palette['on-accent']!, palette.accent!)).toBeGreaterThanOrEqual(4.5);
    });
  });
}
