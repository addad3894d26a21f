/**
 * Gestures on the picture, as the server's input events. A mouse sends its moves, presses and
 * wheel; a finger's tap is a press and its release, and a one-finger swipe is a wheel. Points
 * are mapped from the box onto the surface the picture stands for; the bars map to nothing.
 * Only the controller's gestures leave; a watcher's are reported once per press so the bar can say why.
 */
import { MOD_ALT, MOD_CTRL, MOD_META, MOD_SHIFT, type InputEvent as PageInput } from '../../src/shared/protocol.js';
import { boxToSurface } from './frames/fit.js';
import { MULTI_CLICK_MS, MULTI_CLICK_SLOP_PX, TAP_SLOP_PX } from './limits.js';

export interface GestureTarget {
  controlling(): boolean;
  send(ev: PageInput): void;
  /** The picture's size (the newest frame's), or 0x0 before the first frame. */
  picture(): { w: number; h: number };
  /** A watcher pressed the picture: nothing was sent. */
  refused(): void;
  /** A press on the picture: the page takes the keys. */
  pressed(): void;
}

export function modifiers(e: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): number {
  return (e.altKey ? MOD_ALT : 0) | (e.ctrlKey ? MOD_CTRL : 0) | (e.metaKey ? MOD_META : 0) | (e.shiftKey ? MOD_SHIFT : 0);
}

const BUTTONS = ['left', 'middle', 'right'] as const;

/** Lines and pages of a wheel, in CSS px: what a line scroll moves on the platforms' defaults. */
const WHEEL_LINE_PX = 16;

interface Touch { id: number; x0: number; y0: number; x: number; y: number; swiping: boolean }

export class Gestures {
  private lastPress = { t: 0, x: 0, y: 0, count: 0, button: -1 };
  private pendingMove: PointerEvent | null = null;
  private touch: Touch | null = null;

  constructor(private readonly el: HTMLElement, private readonly target: GestureTarget) {
    el.addEventListener('pointerdown', (e) => this.down(e));
    el.addEventListener('pointermove', (e) => this.move(e));
    el.addEventListener('pointerup', (e) => this.up(e));
    el.addEventListener('pointercancel', () => { this.touch = null; });
    el.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    el.addEventListener('contextmenu', (e) => e.preventDefault());
    // The press's own focus change would take the keys from the page's key sink.
    el.addEventListener('mousedown', (e) => e.preventDefault());
  }

  private point(e: { clientX: number; clientY: number }): { x: number; y: number } | null {
    const r = this.el.getBoundingClientRect();
    const pic = this.target.picture();
    const pw = pic.w || r.width;
    const ph = pic.h || r.height;
    return boxToSurface(e.clientX - r.left, e.clientY - r.top, r.width, r.height, pw, ph);
  }

  private down(e: PointerEvent): void {
    this.target.pressed();
    if (e.pointerType === 'touch') {
      if (!e.isPrimary) return;
      this.touch = { id: e.pointerId, x0: e.clientX, y0: e.clientY, x: e.clientX, y: e.clientY, swiping: false };
      this.el.setPointerCapture(e.pointerId);
      e.preventDefault();
      return;
    }
    if (!this.target.controlling()) { this.target.refused(); return; }
    const p = this.point(e);
    if (!p) return;
    e.preventDefault();
    this.el.setPointerCapture(e.pointerId);
    const button = BUTTONS[e.button] ?? 'left';
    const now = performance.now();
    const l = this.lastPress;
    const near = Math.abs(p.x - l.x) <= MULTI_CLICK_SLOP_PX && Math.abs(p.y - l.y) <= MULTI_CLICK_SLOP_PX;
    const count = now - l.t <= MULTI_CLICK_MS && near && l.button === e.button ? l.count + 1 : 1;
    this.lastPress = { t: now, x: p.x, y: p.y, count, button: e.button };
    const mods = modifiers(e);
    this.target.send({ type: 'mouse', action: 'move', x: p.x, y: p.y, button: 'none', buttons: 0, modifiers: mods });
    this.target.send({ type: 'mouse', action: 'down', x: p.x, y: p.y, button, buttons: e.buttons, clickCount: count, modifiers: mods });
  }

  private move(e: PointerEvent): void {
    if (e.pointerType === 'touch') { this.swipe(e); return; }
    if (!this.target.controlling()) return;
    // One move per animation frame: the newest position is all the page needs.
    if (this.pendingMove === null) requestAnimationFrame(() => this.flushMove());
    this.pendingMove = e;
  }

  private flushMove(): void {
    const e = this.pendingMove;
    this.pendingMove = null;
    if (!e || !this.target.controlling()) return;
    const p = this.point(e);
    if (!p) return;
    const button = e.buttons & 1 ? 'left' : e.buttons & 4 ? 'middle' : e.buttons & 2 ? 'right' : 'none';
    this.target.send({ type: 'mouse', action: 'move', x: p.x, y: p.y, button, buttons: e.buttons, modifiers: modifiers(e) });
  }

  private up(e: PointerEvent): void {
    if (e.pointerType === 'touch') { this.tapEnd(e); return; }
    if (!this.target.controlling()) return;
    this.pendingMove = null;
    const r = this.el.getBoundingClientRect();
    const pic = this.target.picture();
    // A release outside the picture still ends the press: clamp it onto the picture's edge.
    const p = this.point(e) ?? boxToSurface(
      Math.min(Math.max(e.clientX - r.left, 0), r.width), Math.min(Math.max(e.clientY - r.top, 0), r.height),
      r.width, r.height, pic.w || r.width, pic.h || r.height) ?? { x: 0, y: 0 };
    const button = BUTTONS[e.button] ?? 'left';
    this.target.send({ type: 'mouse', action: 'up', x: p.x, y: p.y, button, buttons: e.buttons, clickCount: this.lastPress.count, modifiers: modifiers(e) });
  }

  private wheel(e: WheelEvent): void {
    e.preventDefault();
    if (!this.target.controlling()) return;
    const p = this.point(e);
    if (!p) return;
    const unit = e.deltaMode === 1 ? WHEEL_LINE_PX : e.deltaMode === 2 ? this.el.clientHeight : 1;
    this.target.send({ type: 'wheel', x: p.x, y: p.y, dx: e.deltaX * unit, dy: e.deltaY * unit, modifiers: modifiers(e) });
  }

  private swipe(e: PointerEvent): void {
    const t = this.touch;
    if (!t || t.id !== e.pointerId) return;
    if (!t.swiping && Math.hypot(e.clientX - t.x0, e.clientY - t.y0) < TAP_SLOP_PX) return;
    t.swiping = true;
    const dx = t.x - e.clientX;
    const dy = t.y - e.clientY;
    t.x = e.clientX;
    t.y = e.clientY;
    if (!this.target.controlling()) return;
    const p = this.point(e) ?? this.point({ clientX: t.x0, clientY: t.y0 });
    if (!p) return;
    // The page follows the finger: a finger moving up scrolls the page down.
    this.target.send({ type: 'wheel', x: p.x, y: p.y, dx, dy });
  }

  private tapEnd(e: PointerEvent): void {
    const t = this.touch;
    this.touch = null;
    if (!t || t.id !== e.pointerId || t.swiping) return;
    if (!this.target.controlling()) { this.target.refused(); return; }
    const p = this.point({ clientX: t.x0, clientY: t.y0 });
    if (!p) return;
    this.target.send({ type: 'mouse', action: 'move', x: p.x, y: p.y, button: 'none', buttons: 0 });
    this.target.send({ type: 'mouse', action: 'down', x: p.x, y: p.y, button: 'left', buttons: 1, clickCount: 1 });
    this.target.send({ type: 'mouse', action: 'up', x: p.x, y: p.y, button: 'left', buttons: 0, clickCount: 1 });
  }
}
