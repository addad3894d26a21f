/**
 * Whether the page's focused element takes typing: the signal a phone's client raises its
 * keyboard on. Asked after the controller's presses and focus-moving keys, in every frame of
 * the page (a login form in an iframe counts), and answered only to the tab's controller.
 */
import type { Page } from 'playwright-core';

/** Longest a focus question may take, ms: a page stopped by a dialog answers nothing, and the keyboard stays as it was. */
export const FOCUS_PROBE_TIMEOUT_MS = 1_000;

/** Keys after which the focus may have moved: the controller is told again. */
export const FOCUS_MOVING_KEYS = new Set(['Tab', 'Enter', 'Escape']);

/** Input types that take typed text (a checkbox, a button or a range does not). */
const TEXT_INPUT_TYPES = ['text', 'search', 'email', 'url', 'tel', 'password', 'number', ''];

/** Runs in each frame (page code, hence a string): true when this frame holds the focus on an element that takes typing. */
const FOCUSED_EDITABLE = `(() => {
  if (!document.hasFocus()) return false;
  let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if (!e) return false;
  if (e instanceof HTMLTextAreaElement) return !e.readOnly && !e.disabled;
  if (e instanceof HTMLInputElement) return ${JSON.stringify(TEXT_INPUT_TYPES)}.includes(e.type.toLowerCase()) && !e.readOnly && !e.disabled;
  return e.isContentEditable === true;
})()`;

/** True when any frame of `page` has its focus on an editable element; false when none does or the page does not answer in time. */
export async function focusIsEditable(page: Page): Promise<boolean> {
  const ask = Promise.all(page.frames().map((f) => f.evaluate(FOCUSED_EDITABLE).catch(() => false)))
    .then((answers) => answers.some((a) => a === true));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), FOCUS_PROBE_TIMEOUT_MS); });
  try { return await Promise.race([ask, late]); } finally { clearTimeout(timer); }
}
