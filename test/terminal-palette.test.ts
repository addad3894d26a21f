/**
 * The terminal's palette is part of the client's token set (style.css), complete, and legible on
 * its own ground: the text, the cursor and every colour but black clear WCAG's contrast bars.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { THEME_KEYS, tokenName } from '../clients/web/terminal/theme.js';

const css = readFileSync(new URL('../clients/web/style.css', import.meta.url), 'utf8');
const root = /:root\s*\{([^}]*)\}/.exec(css)![1]!;
const token = (key: string): string | undefined => new RegExp(`${tokenName(key)}:\\s*(#[0-9a-fA-F]{6})`).exec(root)?.[1];

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe('the terminal palette', () => {
  it('defines every theme key as a token of the client\'s :root', () => {
    expect(THEME_KEYS.filter((k) => !token(k))).toEqual([]);
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
});
