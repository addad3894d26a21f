/**
 * The touch key bar: a finger cannot produce Escape, Tab or an arrow. Ctrl and Alt are sticky
 * for the next character the soft keyboard types; every control is a 44 px target.
 */

export interface KeyBar {
  el: HTMLElement;
  /** Applies sticky Ctrl/Alt to typed text, then clears them. */
  modify(data: string): string;
  setEnabled(on: boolean): void;
}

const KEYS: Array<[label: string, bytes: string, aria: string]> = [
  ['Esc', '\x1b', 'Escape'], ['Tab', '\t', 'Tab'], ['^C', '\x03', 'Control C'],
  ['←', '\x1b[D', 'Left'], ['↑', '\x1b[A', 'Up'], ['↓', '\x1b[B', 'Down'], ['→', '\x1b[C', 'Right'],
  ['⏎', '\r', 'Enter'], ['/', '/', 'slash'], ['-', '-', 'minus'], ['|', '|', 'pipe'], ['~', '~', 'tilde'],
];

export function keyBar(send: (data: string) => void, appCursor: () => boolean): KeyBar {
  const el = document.createElement('div');
  el.className = 'term-keybar';
  el.setAttribute('role', 'toolbar');
  el.setAttribute('aria-label', 'terminal keys');
  const sticky = { ctrl: false, alt: false };
  const stickyButton = (name: 'ctrl' | 'alt', label: string): HTMLButtonElement => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.setAttribute('aria-pressed', 'false');
    // Keep the focus (and the soft keyboard) on the terminal: the next typed character takes the modifier.
    b.addEventListener('pointerdown', (e) => e.preventDefault());
    b.addEventListener('click', () => {
      sticky[name] = !sticky[name];
      b.setAttribute('aria-pressed', String(sticky[name]));
    });
    el.append(b);
    return b;
  };
  const ctrlB = stickyButton('ctrl', 'Ctrl');
  const altB = stickyButton('alt', 'Alt');
  const clear = (): void => {
    sticky.ctrl = sticky.alt = false;
    ctrlB.setAttribute('aria-pressed', 'false');
    altB.setAttribute('aria-pressed', 'false');
  };
  for (const [label, bytes, aria] of KEYS) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.setAttribute('aria-label', aria);
    // Keep the focus (and the soft keyboard) on the terminal.
    b.addEventListener('pointerdown', (e) => e.preventDefault());
    b.addEventListener('click', () => {
      let out = bytes;
      if (appCursor() && /^\x1b\[[ABCD]$/.test(out)) out = '\x1bO' + out[2];
      send(modify(out));
    });
    el.append(b);
  }
  const modify = (data: string): string => {
    if (!sticky.ctrl && !sticky.alt) return data;
    let out = data;
    if (sticky.ctrl && out.length === 1) {
      const c = out.toUpperCase().charCodeAt(0);
      if (c >= 0x40 && c <= 0x5f) out = String.fromCharCode(c & 0x1f);
    }
    if (sticky.alt) out = '\x1b' + out;
    clear();
    return out;
  };
  return {
    el,
    modify,
    setEnabled(on: boolean) {
      for (const b of el.querySelectorAll('button')) b.disabled = !on;
    },
  };
}
