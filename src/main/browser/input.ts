/**
 * A controller's gestures as trusted CDP input: a click is a full pointer sequence, a wheel a pixel
 * delta, printable text is inserted as text, the specials are key events with their key codes.
 * Points arrive in the viewer's surface coordinates and are scaled into the page's viewport.
 */
import type { CDPSession } from 'playwright-core';
import { MOD_ALT, MOD_CTRL, MOD_META, MOD_SHIFT, type InputEvent } from '../../shared/protocol.js';
import { ForgeError } from '../../shared/errors.js';
import { INPUT_TEXT_MAX_CHARS, pasteTooLong } from '../../shared/limits.js';
import { dragMove, dragPress, dragRelease } from './drag.js';

interface KeyDef { code: string; keyCode: number; text?: string }

/** Named keys and their Windows virtual key codes, as Chromium's input expects them. */
const SPECIAL_KEYS: Record<string, KeyDef> = {
  Enter: { code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { code: 'Tab', keyCode: 9 },
  Backspace: { code: 'Backspace', keyCode: 8 },
  Escape: { code: 'Escape', keyCode: 27 },
  Delete: { code: 'Delete', keyCode: 46 },
  ArrowLeft: { code: 'ArrowLeft', keyCode: 37 },
  ArrowUp: { code: 'ArrowUp', keyCode: 38 },
  ArrowRight: { code: 'ArrowRight', keyCode: 39 },
  ArrowDown: { code: 'ArrowDown', keyCode: 40 },
  Home: { code: 'Home', keyCode: 36 },
  End: { code: 'End', keyCode: 35 },
  PageUp: { code: 'PageUp', keyCode: 33 },
  PageDown: { code: 'PageDown', keyCode: 34 },
  ' ': { code: 'Space', keyCode: 32, text: ' ' },
  Shift: { code: 'ShiftLeft', keyCode: 16 },
  Control: { code: 'ControlLeft', keyCode: 17 },
  Alt: { code: 'AltLeft', keyCode: 18 },
  Meta: { code: 'MetaLeft', keyCode: 91 },
};

/**
 * A Mac's editing chords, as the editing commands they name. The host is Linux Chromium, whose
 * editing keys are bound to Ctrl only: Cmd+A would select nothing without the command sent along.
 * Keyed by the letter, then whether Shift is held. Cmd+V arrives as a paste, so it is not here.
 */
const META_EDITING_COMMANDS: Record<string, [string, string?]> = {
  a: ['selectAll'],
  c: ['copy'],
  x: ['cut'],
  z: ['undo', 'redo'],
};

/** The editing command a key-down with these modifiers names on a Mac (Cmd alone, or Cmd+Shift+Z), if any. */
function macEditingCommand(key: string, modifiers: number): string | undefined {
  if (!(modifiers & MOD_META) || modifiers & (MOD_CTRL | MOD_ALT)) return undefined;
  const commands = META_EDITING_COMMANDS[key.toLowerCase()];
  return commands?.[modifiers & MOD_SHIFT ? 1 : 0];
}

function keyDef(key: string, code?: string): KeyDef | undefined {
  const special = SPECIAL_KEYS[key];
  if (special) return special;
  if (/^F([1-9]|1[0-2])$/.test(key)) return { code: key, keyCode: 111 + Number(key.slice(1)) };
  if (key.length === 1) {
    const upper = key.toUpperCase();
    if (/[A-Z]/.test(upper)) return { code: code ?? `Key${upper}`, keyCode: upper.charCodeAt(0), text: key };
    if (/[0-9]/.test(key)) return { code: code ?? `Digit${key}`, keyCode: key.charCodeAt(0), text: key };
    return { code: code ?? '', keyCode: 0, text: key };
  }
  return undefined;
}

export interface Scale { sx: number; sy: number; maxX: number; maxY: number }

/**
 * The host's own mouse, for the moments CDP cannot reach: while a popup window (a select's list)
 * is open over the page, the controller's mouse presses the screen there, at the page's point.
 */
export interface ScreenHand { mouse(action: 'move' | 'down' | 'up', x: number, y: number, button: string): Promise<void> }

export async function dispatchInput(session: CDPSession, ev: InputEvent, scale: Scale, hand?: ScreenHand): Promise<void> {
  const px = (x: number): number => clamp(x * scale.sx, 0, scale.maxX - 1);
  const py = (y: number): number => clamp(y * scale.sy, 0, scale.maxY - 1);
  switch (ev.type) {
    case 'mouse': {
      if (hand) {
        await hand.mouse(ev.action, px(ev.x), py(ev.y), ev.button ?? (ev.action === 'move' ? 'none' : 'left'));
        return;
      }
      const left = (ev.button ?? 'left') === 'left';
      // Not awaited before the press: the session keeps the order of its messages, so the press
      // follows the interception without waiting a round trip for it (a click's answer sooner).
      const intercepting = ev.action === 'down' && left ? dragPress(session) : undefined;
      if (ev.action === 'move' && await dragMove(session, px(ev.x), py(ev.y), ev.modifiers ?? 0)) return;
      if (ev.action === 'up' && left && await dragRelease(session, px(ev.x), py(ev.y), ev.modifiers ?? 0)) return;
      const type = ev.action === 'down' ? 'mousePressed' : ev.action === 'up' ? 'mouseReleased' : 'mouseMoved';
      const sent = session.send('Input.dispatchMouseEvent', {
        type, x: px(ev.x), y: py(ev.y),
        button: ev.button ?? (ev.action === 'move' ? 'none' : 'left'),
        buttons: ev.buttons ?? 0,
        clickCount: ev.action === 'move' ? 0 : (ev.clickCount ?? 1),
        modifiers: ev.modifiers ?? 0,
      });
      await Promise.all([intercepting, sent]);
      return;
    }
    case 'wheel':
      await session.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: px(ev.x), y: py(ev.y), deltaX: ev.dx, deltaY: ev.dy, modifiers: ev.modifiers ?? 0 });
      return;
    case 'key': {
      const def = keyDef(ev.key, ev.code);
      if (!def) throw new ForgeError('bad_request', `the key "${ev.key}" is not one forge can press`);
      const modifiers = ev.modifiers ?? 0;
      // With Ctrl, Alt or Meta held a letter is a chord, not text.
      const text = modifiers & (MOD_ALT | MOD_CTRL | MOD_META) ? undefined : def.text;
      const command = ev.action === 'down' ? macEditingCommand(ev.key, modifiers) : undefined;
      await session.send('Input.dispatchKeyEvent', {
        type: ev.action === 'down' ? (text ? 'keyDown' : 'rawKeyDown') : 'keyUp',
        key: ev.key, code: def.code, windowsVirtualKeyCode: def.keyCode, nativeVirtualKeyCode: def.keyCode,
        modifiers, ...(ev.action === 'down' && text ? { text, unmodifiedText: text } : {}),
        ...(command ? { commands: [command] } : {}),
      });
      return;
    }
    case 'text':
      if (ev.text.length > INPUT_TEXT_MAX_CHARS) throw new ForgeError('bad_request', pasteTooLong(INPUT_TEXT_MAX_CHARS));
      await session.send('Input.insertText', { text: ev.text });
      return;
  }
  throw new ForgeError('bad_request', `an input event's type must be mouse, wheel, key or text`);
}

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}
