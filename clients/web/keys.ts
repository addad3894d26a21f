/**
 * The page's keys: a hidden text field over the picture holds the DOM focus while the page has
 * the keyboard. Printable keys arrive as text (so layouts, dead keys and IME commits work), a
 * paste arrives as text, and named keys and chords cross as key events. A phone's keyboard
 * types into the same field. The pane chord (Ctrl/Cmd+Alt+Up/Down) hands the keys to the bar.
 */
import type { InputEvent as PageInput } from '../../src/shared/protocol.js';
import { INPUT_TEXT_MAX_CHARS, pasteTooLong } from '../../src/shared/limits.js';
import { modifiers } from './input.js';

export interface KeyTarget {
  controlling(): boolean;
  send(ev: PageInput): void;
  /** A watcher typed: nothing was sent. */
  refused(): void;
  /** Text past the server's bound: nothing was sent, and this sentence says why. */
  tooLong(sentence: string): void;
  /** The pane chord: move the keys to the bar. */
  toBar(): void;
  /** Ctrl/Cmd+[ and ]: the page's own history. */
  nav(dir: 'back' | 'forward'): void;
}

/** True for the pane chord that moves the keys between the page and the bar. */
export function isPaneChord(e: KeyboardEvent): boolean {
  return (e.ctrlKey || e.metaKey) && e.altKey && (e.key === 'ArrowDown' || e.key === 'ArrowUp');
}

export class KeySink {
  readonly el: HTMLTextAreaElement;
  /** Keys whose down crossed, so their up does too (and no other up does). */
  private down = new Set<string>();
  private composing = false;

  constructor(private readonly target: KeyTarget) {
    const el = document.createElement('textarea');
    el.className = 'key-sink';
    el.setAttribute('aria-label', 'the page\'s keyboard');
    el.setAttribute('autocapitalize', 'off');
    el.setAttribute('autocomplete', 'off');
    el.setAttribute('autocorrect', 'off');
    el.spellcheck = false;
    // No on-screen keyboard until the server says the page's focus takes typing.
    el.inputMode = 'none';
    this.el = el;
    el.addEventListener('keydown', (e) => this.keydown(e));
    el.addEventListener('keyup', (e) => this.keyup(e));
    el.addEventListener('compositionstart', () => { this.composing = true; });
    el.addEventListener('compositionend', (e) => { this.composing = false; this.text(e.data); el.value = ''; });
    el.addEventListener('input', (e) => {
      if (this.composing || (e as InputEvent & { isComposing?: boolean }).isComposing) return;
      const v = el.value;
      el.value = '';
      if (v) this.text(v);
    });
    el.addEventListener('paste', (e) => {
      e.preventDefault();
      const t = e.clipboardData?.getData('text/plain') ?? '';
      if (t) this.text(t);
    });
    el.addEventListener('blur', () => this.releaseAll());
  }

  focus(): void { this.el.focus({ preventScroll: true }); }

  /**
   * Whether the page's focused element takes typing (the server's word): a phone's keyboard is
   * up exactly while it does (the bar's keyboard button asks for it at once).
   */
  setEditable(editable: boolean): void {
    this.el.inputMode = editable ? 'text' : 'none';
  }
  get focused(): boolean { return document.activeElement === this.el; }

  private text(t: string): void {
    if (!t) return;
    if (!this.target.controlling()) { this.target.refused(); return; }
    // Refused here, in words, rather than sent for the server to refuse: a paste past the
    // socket's own bound would end the connection instead of getting an answer.
    if (t.length > INPUT_TEXT_MAX_CHARS) { this.target.tooLong(pasteTooLong(INPUT_TEXT_MAX_CHARS)); return; }
    this.target.send({ type: 'text', text: t });
  }

  private keydown(e: KeyboardEvent): void {
    if (e.isComposing || e.key === 'Process' || e.keyCode === 229) return;
    if (isPaneChord(e)) { e.preventDefault(); this.target.toBar(); return; }
    const chord = e.ctrlKey || e.metaKey;
    if (chord && !e.altKey && (e.key === '[' || e.key === ']')) {
      e.preventDefault();
      this.target.nav(e.key === '[' ? 'back' : 'forward');
      return;
    }
    // Paste comes through the paste event, as text.
    if (chord && !e.altKey && e.key.toLowerCase() === 'v') return;
    // A printable key types into the field; its input event carries the text.
    if (!chord && [...e.key].length === 1) return;
    if (e.key === 'Dead' || e.key === 'Unidentified') return;
    e.preventDefault();
    // Shift, Ctrl, Alt and Meta held alone reach the page as their own keys (a page may act on
    // them); Caps Lock and AltGr are the person's keyboard's business.
    if (isLockOrLayoutKey(e.key)) return;
    if (!this.target.controlling()) { if (!isModifier(e.key)) this.target.refused(); return; }
    this.down.add(e.code || e.key);
    this.target.send({ type: 'key', action: 'down', key: e.key, code: e.code, modifiers: modifiers(e) });
  }

  private keyup(e: KeyboardEvent): void {
    const id = e.code || e.key;
    if (!this.down.delete(id)) return;
    e.preventDefault();
    if (!this.target.controlling()) return;
    this.target.send({ type: 'key', action: 'up', key: e.key, code: e.code, modifiers: modifiers(e) });
  }

  /** Leaving the page lets go of every held key, so none sticks down in the page. */
  private releaseAll(): void {
    if (this.target.controlling()) {
      for (const code of this.down) this.target.send({ type: 'key', action: 'up', key: keyForCode(code), code });
    }
    this.down.clear();
  }
}

function isModifier(key: string): boolean {
  return key === 'Shift' || key === 'Control' || key === 'Alt' || key === 'Meta';
}

function isLockOrLayoutKey(key: string): boolean {
  return key === 'AltGraph' || key === 'CapsLock';
}

/** The key name for a code released on blur, where no event says it: the code's own name serves for named keys. */
function keyForCode(code: string): string {
  if (code.startsWith('Key')) return code.slice(3).toLowerCase();
  if (code.startsWith('Digit')) return code.slice(5);
  return code;
}
