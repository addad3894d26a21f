/**
 * The client's colours, written once: two palettes of the same tokens (the page's ground, text,
 * accents, and the terminal's ground, cursor, selection and 16 ANSI colours), set as custom
 * properties on the page's root. `system` follows the person's light or dark preference and
 * changes with it live; `[client] theme` in forge.toml may pin one palette for every client
 * (the server says which in its welcome). The terminal re-reads its colours on THEME_CHANGED.
 */

export type PaletteName = 'dark' | 'light';
export type ThemeChoice = 'system' | PaletteName;

/** Every token a palette defines, by its custom property's name without the leading `--`. */
export type Palette = Readonly<Record<string, string>>;

const DARK: Palette = {
  bg: '#111317', fg: '#e6e6e6', muted: '#9aa0a6', accent: '#7aa2f7', refuse: '#f7768e', ok: '#9ece6a',
  panel: '#181a20', line: '#2a2d36', stage: '#0b0c0f',
  hover: '#20232b', control: '#2c313c', 'control-line': '#4b5263', warn: '#e5c07b', 'on-accent': '#111317',
  'term-background': '#16181d', 'term-foreground': '#d8dee9', 'term-cursor': '#f0f0f0', 'term-cursor-accent': '#16181d',
  'term-selection-background': '#3b4252',
  'term-black': '#1d2028', 'term-red': '#e06c75', 'term-green': '#98c379', 'term-yellow': '#e5c07b',
  'term-blue': '#61afef', 'term-magenta': '#c678dd', 'term-cyan': '#56b6c2', 'term-white': '#d8dee9',
  'term-bright-black': '#6b7280', 'term-bright-red': '#ef7f88', 'term-bright-green': '#b5e08f', 'term-bright-yellow': '#f2d58f',
  'term-bright-blue': '#7fc1ff', 'term-bright-magenta': '#d899ec', 'term-bright-cyan': '#7ad0da', 'term-bright-white': '#ffffff',
};

const LIGHT: Palette = {
  bg: '#f7f7f5', fg: '#1c1e22', muted: '#5f6570', accent: '#2456c7', refuse: '#b3261e', ok: '#2e7d32',
  panel: '#ffffff', line: '#d6d8dc', stage: '#e9eaec',
  hover: '#eceef1', control: '#eef0f3', 'control-line': '#b9bec6', warn: '#7a5a00', 'on-accent': '#ffffff',
  'term-background': '#fbfbfa', 'term-foreground': '#1f2328', 'term-cursor': '#1f2328', 'term-cursor-accent': '#fbfbfa',
  'term-selection-background': '#c8d7f0',
  'term-black': '#24292f', 'term-red': '#b3261e', 'term-green': '#1a6b2a', 'term-yellow': '#7a5a00',
  'term-blue': '#0b57c2', 'term-magenta': '#8232a8', 'term-cyan': '#0b6b75', 'term-white': '#4a5058',
  'term-bright-black': '#6e7781', 'term-bright-red': '#a40e26', 'term-bright-green': '#116329', 'term-bright-yellow': '#6b4c00',
  'term-bright-blue': '#0550ae', 'term-bright-magenta': '#6e2b9c', 'term-bright-cyan': '#065d66', 'term-bright-white': '#2b3036',
};

export const PALETTES: Readonly<Record<PaletteName, Palette>> = { dark: DARK, light: LIGHT };

/** The window event the page raises after the palette changed: what reads colours once (the terminal) reads them again. */
export const THEME_CHANGED = 'forge-theme-changed';

const LIGHT_QUERY = '(prefers-color-scheme: light)';
let choice: ThemeChoice = 'system';
let watching = false;

/** The palette a choice shows now. */
export function paletteFor(c: ThemeChoice): PaletteName {
  if (c !== 'system') return c;
  return typeof matchMedia === 'function' && matchMedia(LIGHT_QUERY).matches ? 'light' : 'dark';
}

function paint(): void {
  const name = paletteFor(choice);
  const root = document.documentElement;
  if (root.dataset.palette === name) return;
  for (const [k, v] of Object.entries(PALETTES[name])) root.style.setProperty(`--${k}`, v);
  root.style.colorScheme = name;
  root.dataset.palette = name;
  window.dispatchEvent(new Event(THEME_CHANGED));
}

/** Shows `c` (the server's `[client] theme`, else the person's preference), and follows the preference while it is `system`. */
export function applyTheme(c: ThemeChoice = choice): void {
  choice = c;
  if (!watching && typeof matchMedia === 'function') {
    watching = true;
    matchMedia(LIGHT_QUERY).addEventListener('change', () => paint());
  }
  paint();
}

/** A theme name as the server sent it: an unknown one is the person's preference. */
export function themeChoice(v: unknown): ThemeChoice {
  return v === 'dark' || v === 'light' ? v : 'system';
}
