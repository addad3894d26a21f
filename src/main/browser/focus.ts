/**
 * What the page's focus is, asked in every frame of the page (a login form in an iframe counts)
 * and answered only to the tab's controller: whether the focused element takes typing (a phone's
 * client raises its keyboard on it), and the text a copy or cut chord is about to take (it goes
 * to the person's own clipboard, not the host's).
 */
import type { Page } from 'playwright-core';

/** Longest a focus question may take, ms: a page stopped by a dialog answers nothing, and the keyboard (or the clipboard) stays as it was. */
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

/** Longest text a copy or cut hands to the person's clipboard, characters: a page's worth of text, not a file. */
export const COPY_TEXT_MAX_CHARS = 1_000_000;

/** Runs in each frame: the selected text where this frame holds the focus (a field's selection, else the document's), null elsewhere; a password field gives nothing. */
const FOCUSED_SELECTION = `(() => {
  if (!document.hasFocus()) return null;
  let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if ((e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) && typeof e.selectionStart === 'number') {
    return e.type === 'password' ? '' : e.value.slice(e.selectionStart, e.selectionEnd ?? e.selectionStart);
  }
  if (e instanceof HTMLIFrameElement) return null;
  return String(getSelection() ?? '');
})()`;

/** The text a copy or cut would take now, '' when nothing is selected or the page does not answer in time. */
export async function selectedText(page: Page): Promise<string> {
  const texts = await bounded(Promise.all(page.frames().map((f) => f.evaluate(FOCUSED_SELECTION).catch(() => null))), []);
  const t = texts.find((x): x is string => typeof x === 'string' && x !== '') ?? '';
  return t.slice(0, COPY_TEXT_MAX_CHARS);
}

/** `p`, or `otherwise` once FOCUS_PROBE_TIMEOUT_MS has passed. */
async function bounded<T>(p: Promise<T>, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => { timer = setTimeout(() => resolve(otherwise), FOCUS_PROBE_TIMEOUT_MS); });
  try { return await Promise.race([p, late]); } finally { clearTimeout(timer); }
}

/** True when any frame of `page` has its focus on an editable element; false when none does or the page does not answer in time. */
export async function focusIsEditable(page: Page): Promise<boolean> {
  const answers = await bounded(Promise.all(page.frames().map((f) => f.evaluate(FOCUSED_EDITABLE).catch(() => false))), []);
  return answers.some((a) => a === true);
}
