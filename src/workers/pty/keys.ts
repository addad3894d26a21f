/**
 * Named keys as the bytes a terminal sends for them, xterm's encoding. Arrows and Home/End
 * follow the application-cursor mode the program asked for, as a real terminal would.
 */
import { ForgeError } from '../../shared/errors.js';

const PLAIN: Record<string, string> = {
  enter: '\r', return: '\r', tab: '\t', escape: '\x1b', esc: '\x1b', backspace: '\x7f', space: ' ',
  delete: '\x1b[3~', insert: '\x1b[2~', pageup: '\x1b[5~', pagedown: '\x1b[6~',
  f1: '\x1bOP', f2: '\x1bOQ', f3: '\x1bOR', f4: '\x1bOS', f5: '\x1b[15~', f6: '\x1b[17~', f7: '\x1b[18~',
  f8: '\x1b[19~', f9: '\x1b[20~', f10: '\x1b[21~', f11: '\x1b[23~', f12: '\x1b[24~',
};

const CURSOR: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F' };

/** Modifier names, lower case: the spelled-out ones, and tmux's and Emacs's letters (`C-c`, `M-b`, `S-Tab`). */
const MODIFIERS: Record<string, 'ctrl' | 'alt' | 'shift'> = {
  ctrl: 'ctrl', control: 'ctrl', c: 'ctrl', alt: 'alt', meta: 'alt', m: 'alt', shift: 'shift', s: 'shift',
};

/**
 * The bytes for one named key such as `Enter`, `Ctrl-C`, `Alt-b`, `Shift-Tab`, `Up`; also as
 * tmux and Emacs write them (`C-c`, `M-b`) and in caret notation (`^C`).
 */
export function encodeKey(name: string, appCursor: boolean): string {
  const caret = /^\^(.)$/.exec(name.trim());
  const parts = caret ? ['ctrl', caret[1]!] : name.trim().split(/[-+](?=.)/);
  let key = parts.pop() ?? '';
  const mods = new Set<string>();
  for (const p of parts) {
    const m = MODIFIERS[p.toLowerCase()];
    if (!m) throw unknown(name);
    mods.add(m);
  }
  const ctrl = mods.has('ctrl');
  const alt = mods.has('alt');
  const shift = mods.has('shift');
  const lower = key.toLowerCase();
  let out: string;
  if (lower in CURSOR) {
    const mod = 1 + (shift ? 1 : 0) + (alt ? 2 : 0) + (ctrl ? 4 : 0);
    if (mod > 1) return `\x1b[1;${mod}${CURSOR[lower]}`;
    return (appCursor ? '\x1bO' : '\x1b[') + CURSOR[lower];
  }
  if (lower === 'tab' && shift) return '\x1b[Z';
  if (lower in PLAIN) {
    out = PLAIN[lower];
  } else if ([...key].length === 1) {
    if (shift) key = key.toUpperCase();
    out = key;
    if (ctrl) {
      const c = key.toUpperCase().charCodeAt(0);
      if (c >= 0x40 && c <= 0x5f) out = String.fromCharCode(c & 0x1f);
      else if (key === '?') out = '\x7f';
      else if (key === ' ' || key === '2') out = '\x00';
      else throw unknown(name);
    }
  } else {
    throw unknown(name);
  }
  if (ctrl && lower === 'space') out = '\x00';
  return alt ? '\x1b' + out : out;
}

function unknown(name: string): ForgeError {
  return new ForgeError('bad_request', `"${name}" is not a key forge knows; use names like Enter, Tab, Escape, Backspace, Up, Down, Left, Right, Home, End, PageUp, PageDown, Delete, F1-F12, or Ctrl-C, Alt-b, Shift-Tab`);
}
