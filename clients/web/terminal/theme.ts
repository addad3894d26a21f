/**
 * The terminal's theme from the client's token set: the `--term-*` custom properties beside the
 * rest of the palette in style.css, so a second palette themes the terminal too. A token the page
 * does not define leaves xterm's own colour for that slot.
 */
import type { ITheme } from '@xterm/xterm';

const ANSI = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'] as const;

/** The theme's keys, each read from `--term-<key in kebab case>` (e.g. --term-bright-red). */
export const THEME_KEYS: readonly string[] = [
  'background', 'foreground', 'cursor', 'cursorAccent', 'selectionBackground',
  ...ANSI, ...ANSI.map((c) => 'bright' + c[0]!.toUpperCase() + c.slice(1)),
];

export const tokenName = (key: string): string => '--term-' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());

/** Reads the `--term-*` tokens from `el` (from the document's root while `el` is not in the page yet). */
export function terminalTheme(el: Element): ITheme {
  const css = getComputedStyle(el.isConnected ? el : document.documentElement);
  const theme: Record<string, string> = {};
  for (const key of THEME_KEYS) {
    const v = css.getPropertyValue(tokenName(key)).trim();
    if (v) theme[key] = v;
  }
  return theme as ITheme;
}
