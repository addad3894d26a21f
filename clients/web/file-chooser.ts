/**
 * The page's file chooser, answered with this device's own picker. The server asks the viewer
 * that controls the tab; the prompt says the page wants a file, and its Choose button opens the
 * platform's picker (a browser opens one only from a person's own click). The picked files go
 * back base64 in one message; a cancelled picker cancels the page's chooser. A pick past the
 * limits is never sent: the answer is a dismiss, and the server's sentence says why.
 */
import { FILE_CHOOSER_MAX_BYTES, FILE_CHOOSER_MAX_FILES } from '../../src/shared/limits.js';
import type { ClientMessageOf, PickedFile, ServerMessage } from '../../src/shared/protocol.js';
import { NOT_SENT, type Connection } from './connection.js';
import { h } from './dom.js';
import { addFileStyles } from './file-styles.js';

interface Ask { chooser: string; tab: number; pageId: string; multiple: boolean; accept: string }
interface End { chooser: string; outcome: 'picked' | 'dismissed' | 'gone'; message: string }

export interface ChooserHost {
  /** The page this surface shows now, and whether this viewer controls it; null when nothing is up. */
  shown(): { pageId: string; controlling: boolean } | null;
  say(sentence: string, tone: 'refusal' | 'plain'): void;
}

export class FileChooserPrompt {
  readonly el: HTMLElement;
  private ask: Ask | null = null;
  /** The chooser this client cancelled itself: its end is no news to the person. */
  private cancelled: string | null = null;
  private readonly words: HTMLElement;
  private readonly hint: HTMLElement;
  private readonly choose: HTMLButtonElement;

  constructor(private readonly conn: Connection, private readonly host: ChooserHost) {
    addFileStyles();
    this.words = h('p', { class: 'chooser-words' });
    this.hint = h('p', { class: 'chooser-hint' });
    this.choose = h('button', { type: 'button', class: 'chooser-choose', onclick: () => this.openPicker() });
    const cancel = h('button', { type: 'button', class: 'chooser-cancel', onclick: () => this.dismiss() }, 'Cancel');
    this.el = h('div', { class: 'chooser-prompt', role: 'alertdialog', 'aria-label': 'the page wants a file', hidden: true },
      this.words, this.hint, h('div', { class: 'chooser-actions' }, this.choose, cancel));
    conn.onMessage((m) => this.message(m));
    // A socket that dropped lost the role: the server asks again once control is taken back.
    conn.onState((s) => { if (s !== 'open' && this.ask) { this.ask = null; this.sync(); } });
  }

  private message(m: ServerMessage): void {
    if (m.t === 'file_chooser') {
      this.ask = m as unknown as Ask;
      this.sync();
    } else if (m.t === 'file_chooser_end') {
      const e = m as unknown as End;
      if (this.ask?.chooser === e.chooser) { this.ask = null; this.sync(); }
      if (this.cancelled !== e.chooser) this.host.say(e.message, e.outcome === 'picked' ? 'plain' : 'refusal');
      this.cancelled = null;
    }
  }

  /** Shows the prompt while the page that asked is up here and this viewer controls it. */
  sync(): void {
    const ask = this.ask;
    const shown = this.host.shown();
    const up = ask !== null && shown !== null && shown.controlling && shown.pageId === ask.pageId;
    const wasHidden = this.el.hidden;
    this.el.hidden = !up;
    if (!up || !ask) return;
    this.words.textContent = `The page on tab ${ask.tab} wants ${ask.multiple ? 'files' : 'a file'}.`;
    this.hint.textContent = `${ask.accept ? `It takes ${ask.accept}. ` : ''}Up to ${ask.multiple ? `${FILE_CHOOSER_MAX_FILES} files, ` : ''}${FILE_CHOOSER_MAX_BYTES / (1024 * 1024)} MiB in all.`;
    this.choose.textContent = ask.multiple ? 'Choose files…' : 'Choose file…';
    if (wasHidden) this.choose.focus({ preventScroll: true });
  }

  /** The platform's own picker, opened from the person's click on Choose. */
  private openPicker(): void {
    const ask = this.ask;
    if (!ask) return;
    const input = h('input', { type: 'file', hidden: true, class: 'chooser-input' });
    input.multiple = ask.multiple;
    if (ask.accept) input.accept = ask.accept;
    input.addEventListener('change', () => { input.remove(); void this.send(ask, [...(input.files ?? [])]); });
    input.addEventListener('cancel', () => { input.remove(); this.dismiss(); });
    this.el.append(input);
    input.click();
  }

  private dismiss(picked?: { files: number; bytes: number }): void {
    const ask = this.ask;
    if (!ask) return;
    if (!picked) this.cancelled = ask.chooser;
    this.answer({ t: 'file_chooser_answer', chooser: ask.chooser, dismiss: true, ...(picked ? { picked } : {}) });
  }

  private async send(ask: Ask, files: File[]): Promise<void> {
    if (files.length === 0) { this.dismiss(); return; }
    const bytes = files.reduce((sum, f) => sum + f.size, 0);
    if (files.length > FILE_CHOOSER_MAX_FILES || bytes > FILE_CHOOSER_MAX_BYTES) {
      this.dismiss({ files: files.length, bytes });
      return;
    }
    const picked: PickedFile[] = await Promise.all(files.map(async (f) => ({ name: f.name, ...(f.type ? { type: f.type } : {}), data: await base64(f) })));
    if (this.ask?.chooser !== ask.chooser) return; // answered elsewhere while the files were read
    this.answer({ t: 'file_chooser_answer', chooser: ask.chooser, files: picked });
  }

  private answer(msg: ClientMessageOf<'file_chooser_answer'>): void {
    if (!this.conn.send(msg)) { this.host.say(NOT_SENT, 'refusal'); return; }
    this.words.textContent = 'Sending…';
  }
}

/** A file's bytes as base64, read by the platform rather than a byte loop. */
function base64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => { const url = String(r.result); resolve(url.slice(url.indexOf(',') + 1)); };
    r.onerror = () => reject(r.error ?? new Error(`${file.name} could not be read`));
    r.readAsDataURL(file);
  });
}
