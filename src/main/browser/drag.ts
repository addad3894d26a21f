/**
 * HTML5 drag and drop under a person's hand. A page that starts a drag from CDP input would hand
 * it to the window system's own drag loop, which follows the real pointer, not CDP's: the drop
 * then lands only when timing is kind. While a person's button is down, drags are intercepted
 * instead (`Input.setInterceptDrags`), and once the page starts one, the moves that follow are
 * its drag-over events and the release is its drop, all through CDP.
 */
import type { CDPSession } from 'playwright-core';

interface DragData { items: Array<{ mimeType: string; data: string }>; files?: string[]; dragOperationsMask: number }
interface DragState { data?: DragData; entered: boolean; listener: (e: { data: DragData }) => void }

const pressed = new WeakMap<CDPSession, DragState>();

/** The button went down: a drag the page starts from here is intercepted. */
export async function dragPress(session: CDPSession): Promise<void> {
  if (pressed.has(session)) return;
  const state: DragState = { entered: false, listener: (e) => { state.data = e.data; } };
  pressed.set(session, state);
  session.on('Input.dragIntercepted', state.listener);
  await session.send('Input.setInterceptDrags', { enabled: true });
}

/** A move with the button down: true when it went to the page as a drag-over (a drag is under way). */
export async function dragMove(session: CDPSession, x: number, y: number, modifiers: number): Promise<boolean> {
  const state = pressed.get(session);
  if (!state?.data) return false;
  if (!state.entered) {
    state.entered = true;
    await session.send('Input.dispatchDragEvent', { type: 'dragEnter', x, y, data: state.data, modifiers });
  }
  await session.send('Input.dispatchDragEvent', { type: 'dragOver', x, y, data: state.data, modifiers });
  return true;
}

/** The button came up: true when it was a drag's drop. Interception ends either way. */
export async function dragRelease(session: CDPSession, x: number, y: number, modifiers: number): Promise<boolean> {
  const state = pressed.get(session);
  if (!state) return false;
  pressed.delete(session);
  session.off('Input.dragIntercepted', state.listener);
  try {
    if (!state.data) return false;
    if (!state.entered) await session.send('Input.dispatchDragEvent', { type: 'dragEnter', x, y, data: state.data, modifiers });
    await session.send('Input.dispatchDragEvent', { type: 'drop', x, y, data: state.data, modifiers });
    return true;
  } finally {
    await session.send('Input.setInterceptDrags', { enabled: false }).catch(() => undefined);
  }
}
