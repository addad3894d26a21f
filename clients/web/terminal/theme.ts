/**
 * The terminal's theme from the client's token set: CSS custom properties on the document, each
 * with a fallback hex, so a second palette themes the terminal for free.
 */
import type { ITheme } from '@xterm/xterm';

const ANSI = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'] as const;
const FALLBACK: Record<string, string> = {
  background: '#16181d', foreground: '#d8dee9', cursor: '#f0f0f0', cursorAccent: '#16181d', selectionBackground: '#3b4252',
  black: '#1d2028', red: '#e06c75', green: '#98c379', yellow: '#e5c07b', blue: '#61afef', magenta: '#c678dd', cyan: '#56b6c2', white: '#d8dee9',
  brightBlack: '#5c6370', brightRed: '#ef7f88', brightGreen: '#b5e08f', brightYellow: '#f2d58f', brightBlue: '#7fc1ff', brightMagenta: '#d899ec', brightCyan: '#7ad0da', brightWhite: '#ffffff',
};

/** Reads `--term-<name>` tokens (e.g. --term-red, --term-bright-red, --term-cursor) from `el`. */
export function terminalTheme(el: Element): ITheme {
  const css = getComputedStyle(el);
  const token = (key: string): string => {
    const name = '--term-' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
    return css.getPropertyValue(name).trim() || FALLBACK[key];
  };
  const theme: Record<string, string> = {};
  for (const key of ['background', 'foreground', 'cursor', 'cursorAccent', 'selectionBackground']) theme[key] = token(key);
  for (const c of ANSI) {
    theme[c] = token(c);
    const bright = 'bright' + c[0].toUpperCase() + c.slice(1);
    theme[bright] = token(bright);
  }
  return theme as ITheme;
}
