/**
 * Raising a terminal: the xterm.js chunk is imported on first raise only. Frames that land
 * while it loads are held up to TERM_HOLD_MAX_BYTES, past which the surface asks for a fresh
 * repaint instead. A chunk that will not load lowers the surface; the next raise retries.
 * This file is in the page's own bundle; everything heavy is behind the import.
 */
import { TERM_HOLD_MAX_BYTES } from '../../../src/shared/terminal.js';
import type { TerminalConn, TerminalOptions, TerminalSurfaceHandle } from './surface.js';

export type { TerminalConn, TerminalOptions, TerminalSurfaceHandle };

export async function raiseTerminal(root: HTMLElement, conn: TerminalConn, opts: TerminalOptions & { onFail?: (message: string) => void }): Promise<TerminalSurfaceHandle | null> {
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  let overflow = false;
  const off = conn.onBinary((b) => {
    if (b[0] !== 4 || overflow) return;
    heldBytes += b.byteLength;
    if (heldBytes > TERM_HOLD_MAX_BYTES) { overflow = true; held.length = 0; return; }
    held.push(b.slice());
  });
  try {
    const mod = await import('./surface.js');
    off();
    return mod.openTerminalSurface(root, conn, { ...opts, held, heldOverflow: overflow });
  } catch (e) {
    off();
    opts.onFail?.(`the terminal could not load (${(e as Error).message}); show it again to retry`);
    return null;
  }
}
