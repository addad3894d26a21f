/**
 * XDamage on a host's display: one event per rectangle the X server painted, at report level
 * RawRectangles (no Subtract round trips). Damage on the root window covers every top-level
 * window, so one subscription serves all of a host's tabs.
 */
import { createRequire } from 'node:module';
import type { Rect } from '../../shared/capture.js';

const require = createRequire(import.meta.url);

interface XDisplay { screen: Array<{ root: number }>; client: XClient }
interface XClient {
  AllocID(): number;
  require(ext: string, cb: (err: Error | null, ext: DamageExt) => void): void;
  on(ev: 'event', cb: (e: { name?: string; area?: Rect }) => void): void;
  on(ev: 'error' | 'end' | 'close', cb: (e?: Error) => void): void;
  GetInputFocus(cb: (err: Error | null) => void): void;
  QueryTree(win: number, cb: (err: Error | null, tree: { children: number[] }) => void): void;
  GetGeometry(win: number, cb: (err: Error | null, g: { xPos: number; yPos: number; width: number; height: number }) => void): void;
  SendEvent(dest: number, propagate: number, mask: number, raw: Buffer): void;
  terminate?(): void;
  close?(): void;
}
interface DamageExt { ReportLevel: { RawRectangles: number }; Create(id: number, drawable: number, level: number): void }
const x11 = require('x11') as { createClient(opts: { display: string }, cb: (err: Error | null, d: XDisplay) => void): XClient };

/**
 * Longest caughtUp waits for the X server's reply, ms: a display that died or hangs must not hold
 * a placement for ever (its loss is reported on its own). Past it the placement goes on, as
 * before this wait: only a first picture's judgement of what is paint can then be wrong.
 */
export const CAUGHT_UP_WAIT_MS = 1000;

/** The core protocol's Expose event code, and the event mask a window selects to get it. */
const X_EXPOSE = 12;
const X_EXPOSURE_MASK = 1 << 15;
/** A core protocol event's size on the wire, bytes. */
const X_EVENT_BYTES = 32;

export class DamageWatch {
  private constructor(private readonly client: XClient, private readonly root: number) {}

  /** Subscribes to damage on display `:display`; `onDamage` gets each painted rectangle (screen px). */
  static open(display: number, onDamage: (r: Rect) => void, onLost: (why: string) => void): Promise<DamageWatch> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const client = x11.createClient({ display: `:${display}` }, (err, d) => {
        if (err) { settled = true; reject(err); return; }
        const X = d.client;
        X.require('damage', (e, Damage) => {
          if (e) { settled = true; reject(e); return; }
          const id = X.AllocID();
          Damage.Create(id, d.screen[0]!.root, Damage.ReportLevel.RawRectangles);
          X.on('event', (ev) => { if (ev.name === 'DamageNotify' && ev.area) onDamage(ev.area); });
          settled = true;
          resolve(new DamageWatch(X, d.screen[0]!.root));
        });
      });
      client.on('error', (e) => { if (!settled) { settled = true; reject(e ?? new Error('X connection failed')); } else onLost(String(e)); });
      client.on('end', () => { if (settled) onLost('the display closed'); });
    });
  }

  /**
   * Resolves once every damage event the X server made before now has been handed to `onDamage`:
   * a round trip on this connection, whose reply the server sends after those events. Damage is
   * stamped when it is read, and on a loaded machine the X server carries out a window's move
   * late (and the worker reads its damage late): a caller that takes its time after this has that
   * damage before its time, never after.
   */
  caughtUp(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, CAUGHT_UP_WAIT_MS);
      const done = (): void => { clearTimeout(timer); resolve(); };
      try { this.client.GetInputFocus(done); } catch { done(); }
    });
  }

  /**
   * Asks the window showing screen rectangle `r` to paint it again, as the X server asks a window
   * that comes into view (an Expose event): Chromium redraws it from the page's latest frame, so
   * the damage that follows is the page's own pixels. Resolves once the ask is sent (at most
   * CAUGHT_UP_WAIT_MS); a rectangle no top-level window holds asks nothing.
   */
  repaint(r: Rect): Promise<void> {
    const ask = async (): Promise<void> => {
      const call = <T>(f: (cb: (err: Error | null, v: T) => void) => void): Promise<T> =>
        new Promise<T>((resolve, reject) => { f((err, v) => (err ? reject(err) : resolve(v))); });
      const { children } = await call<{ children: number[] }>((cb) => this.client.QueryTree(this.root, cb));
      for (const win of children) {
        const g = await call<{ xPos: number; yPos: number; width: number; height: number }>((cb) => this.client.GetGeometry(win, cb)).catch(() => undefined);
        if (!g || r.x < g.xPos || r.y < g.yPos || r.x + r.w > g.xPos + g.width || r.y + r.h > g.yPos + g.height) continue;
        const ev = Buffer.alloc(X_EVENT_BYTES);
        ev.writeUInt8(X_EXPOSE, 0);
        ev.writeUInt32LE(win, 4);
        ev.writeUInt16LE(r.x - g.xPos, 8);
        ev.writeUInt16LE(r.y - g.yPos, 10);
        ev.writeUInt16LE(r.w, 12);
        ev.writeUInt16LE(r.h, 14);
        this.client.SendEvent(win, 0, X_EXPOSURE_MASK, ev);
        return;
      }
    };
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, CAUGHT_UP_WAIT_MS);
      ask().catch(() => undefined).finally(() => { clearTimeout(timer); resolve(); });
    });
  }

  close(): void {
    try { (this.client.terminate ?? this.client.close)?.call(this.client); } catch { /* already gone */ }
  }
}
