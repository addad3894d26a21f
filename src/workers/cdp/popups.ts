/**
 * Popup windows on a host's display, and a hand to click them. Chromium opens a `<select>`'s list
 * (and its other popup widgets) as an override-redirect window of its own on the root, outside
 * the page, where CDP input never lands. This module watches the root for such windows being
 * mapped, moved and unmapped, and presses the mouse through XTest at a screen point, as a
 * person's hand on that display would.
 */
import { createRequire } from 'node:module';
import type { Rect } from '../../shared/capture.js';

const require = createRequire(import.meta.url);

/** Smallest popup side that counts, px: Chromium keeps 1×1 and 10×10 helper windows that are not widgets. */
export const POPUP_MIN_SIDE_PX = 16;

interface XEvent { name?: string; wid?: number; wid1?: number; x?: number; y?: number; width?: number; height?: number; overrideRedirect?: boolean | number }
interface XClient {
  AllocID(): number;
  require(ext: string, cb: (err: Error | null, ext: XTestExt) => void): void;
  ChangeWindowAttributes(wid: number, values: { eventMask: number }, cb?: (err: Error | null) => void): void;
  GetGeometry(wid: number, cb: (err: Error | null, g: { xPos: number; yPos: number; width: number; height: number }) => void): void;
  on(ev: 'event', cb: (e: XEvent) => void): void;
  on(ev: 'error' | 'end' | 'close', cb: (e?: Error) => void): void;
  terminate?(): void;
  close?(): void;
}
interface XTestExt { ButtonPress: number; ButtonRelease: number; MotionNotify: number; FakeInput(type: number, detail: number, time: number, wid: number, x: number, y: number): void }
interface XDisplay { screen: Array<{ root: number }>; client: XClient }
const x11 = require('x11') as {
  createClient(opts: { display: string }, cb: (err: Error | null, d: XDisplay) => void): XClient;
  eventMask: { SubstructureNotify: number };
};

/** X pointer buttons by the names input uses. */
const X_BUTTONS: Record<string, number> = { left: 1, middle: 2, right: 3 };

export class PopupWindows {
  /** Override-redirect windows the root has, with where they are and whether they are mapped. */
  private readonly windows = new Map<number, Rect & { mapped: boolean; override: boolean }>();

  private constructor(private readonly client: XClient, private readonly root: number, private readonly xtest: XTestExt, private readonly changed: (open: Rect[]) => void) {}

  /** Watches display `:display`; `changed` gets the open popups' rectangles (screen px) whenever they change. */
  static open(display: number, changed: (open: Rect[]) => void): Promise<PopupWindows> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const client = x11.createClient({ display: `:${display}` }, (err, d) => {
        if (err) { settled = true; reject(err); return; }
        const X = d.client;
        const root = d.screen[0]!.root;
        X.require('xtest', (e, xtest) => {
          if (e) { settled = true; reject(e); return; }
          const popups = new PopupWindows(X, root, xtest, changed);
          X.on('event', (ev) => popups.event(ev));
          X.ChangeWindowAttributes(root, { eventMask: x11.eventMask.SubstructureNotify });
          settled = true;
          resolve(popups);
        });
      });
      client.on('error', (e) => { if (!settled) { settled = true; reject(e ?? new Error('X connection failed')); } });
    });
  }

  /** The popups mapped now (screen px). */
  openRects(): Rect[] {
    const out: Rect[] = [];
    for (const w of this.windows.values()) {
      if (w.mapped && w.override && w.w >= POPUP_MIN_SIDE_PX && w.h >= POPUP_MIN_SIDE_PX) out.push({ x: w.x, y: w.y, w: w.w, h: w.h });
    }
    return out;
  }

  /** Moves the X pointer to a screen point and presses or releases `button` there (or only moves). */
  mouse(action: 'move' | 'down' | 'up', x: number, y: number, button: string): void {
    const t = this.xtest;
    t.FakeInput(t.MotionNotify, 0, 0, this.root, Math.round(x), Math.round(y));
    const b = X_BUTTONS[button];
    if (action === 'move' || b === undefined) return;
    t.FakeInput(action === 'down' ? t.ButtonPress : t.ButtonRelease, b, 0, this.root, 0, 0);
  }

  close(): void {
    try { (this.client.terminate ?? this.client.close)?.call(this.client); } catch { /* already gone */ }
  }

  private event(ev: XEvent): void {
    const before = JSON.stringify(this.openRects());
    switch (ev.name) {
      case 'CreateNotify':
        this.windows.set(ev.wid!, { x: ev.x!, y: ev.y!, w: ev.width!, h: ev.height!, mapped: false, override: !!ev.overrideRedirect });
        break;
      case 'ConfigureNotify': {
        const w = this.windows.get(ev.wid1!);
        if (w) Object.assign(w, { x: ev.x!, y: ev.y!, w: ev.width!, h: ev.height!, override: !!ev.overrideRedirect });
        break;
      }
      case 'MapNotify': {
        const w = this.windows.get(ev.wid!);
        if (w) { w.mapped = true; w.override = !!ev.overrideRedirect; break; }
        // A window made before this watch began: where it is is asked of the server.
        if (!ev.overrideRedirect) return;
        const wid = ev.wid!;
        this.client.GetGeometry(wid, (err, g) => {
          if (err || this.windows.has(wid)) return;
          const was = JSON.stringify(this.openRects());
          this.windows.set(wid, { x: g.xPos, y: g.yPos, w: g.width, h: g.height, mapped: true, override: true });
          const now = this.openRects();
          if (JSON.stringify(now) !== was) this.changed(now);
        });
        return;
      }
      case 'UnmapNotify': {
        const w = this.windows.get(ev.wid!);
        if (w) w.mapped = false;
        break;
      }
      case 'DestroyNotify':
        this.windows.delete(ev.wid!);
        break;
      default:
        return;
    }
    const after = this.openRects();
    if (JSON.stringify(after) !== before) this.changed(after);
  }
}
