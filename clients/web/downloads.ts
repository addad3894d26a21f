/**
 * The downloads tray: a page's finished download, offered to this viewer as the tab's controller,
 * with a Save link the browser downloads (the relay serves the bytes at a signed link); a refused
 * download in the server's words; and a loss from the profile's backlog, titled by its count.
 */
import type { ServerMessage } from '../../src/shared/protocol.js';
import { sizeInWords } from '../../src/shared/sizes.js';
import type { Connection } from './connection.js';
import { h } from './dom.js';
import { addFileStyles } from './file-styles.js';

/** Entries the tray shows at once: four downloads (the profile's backlog) and a notice fit a phone's screen. */
const TRAY_ENTRIES_MAX = 5;

/** How long a fetched download's bytes stay addressable after the save starts, ms: the browser reads them at once. */
const BLOB_KEEP_MS = 60_000;

interface Offer { download: string; tab: number; name: string; size: number; url: string }

export class DownloadTray {
  readonly el: HTMLElement;

  constructor(conn: Connection) {
    addFileStyles();
    this.el = h('section', { class: 'downloads-tray', 'aria-label': 'downloads', 'aria-live': 'polite' });
    conn.onMessage((m) => this.message(m));
  }

  private message(m: ServerMessage): void {
    switch (m.t) {
      case 'download': {
        const d = m as unknown as Offer;
        // An offer made again (control taken back) replaces the entry it already has.
        this.el.querySelector(`[data-download="${CSS.escape(d.download)}"]`)?.remove();
        const save = h('a', { class: 'tray-save', href: d.url, download: d.name }, 'Save');
        const entry = this.entry(`Download from tab ${d.tab}`, `${d.name} · ${sizeInWords(d.size)}`, 'plain', save);
        entry.dataset.download = d.download;
        save.addEventListener('click', (e) => { e.preventDefault(); void this.save(entry, save, d); });
        break;
      }
      case 'download_refused': {
        const r = m as unknown as { tab: number; name: string; message: string };
        this.entry(`Download refused on tab ${r.tab}`, r.message, 'refusal');
        break;
      }
      case 'download_lost': {
        const l = m as unknown as { title: string; message: string; dropped?: string[] };
        // The dropped downloads' links serve nothing any more: their entries go.
        for (const id of l.dropped ?? []) this.el.querySelector(`[data-download="${CSS.escape(id)}"]`)?.remove();
        this.entry(l.title, l.message, 'refusal');
        break;
      }
    }
  }

  /**
   * Fetches the bytes first, so a link the server no longer serves is said in its words on the
   * entry instead of a browser's failed download; then the browser saves them under the page's name.
   */
  private async save(entry: HTMLElement, link: HTMLAnchorElement, d: Offer): Promise<void> {
    const words = entry.querySelector('.tray-words')!;
    let res: Response;
    try {
      res = await fetch(d.url);
    } catch {
      entry.dataset.tone = 'refusal';
      words.textContent = `${d.name} could not be saved: the connection is down.`;
      return;
    }
    if (!res.ok) {
      entry.dataset.tone = 'refusal';
      words.textContent = `${d.name} could not be saved: ${await res.text()}.`;
      link.remove();
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const a = h('a', { href: url, download: d.name, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    // The browser has taken the bytes by the next turn; the blob need not outlive it long.
    window.setTimeout(() => URL.revokeObjectURL(url), BLOB_KEEP_MS);
    words.textContent = `${d.name} · ${sizeInWords(d.size)} · saved`;
  }

  private entry(title: string, words: string, tone: 'plain' | 'refusal', action?: HTMLElement): HTMLElement {
    const close = h('button', { type: 'button', class: 'tray-close', 'aria-label': 'dismiss', onclick: () => entry.remove() }, '×');
    const entry = h('div', { class: 'tray-entry', 'data-tone': tone, role: 'status' },
      h('div', {}, h('p', { class: 'tray-title' }, title), h('p', { class: 'tray-words' }, words)),
      h('div', { class: 'tray-actions' }, action ?? null, close));
    this.el.append(entry);
    // The oldest entries make way: the tray is a glance, not a history.
    while (this.el.children.length > TRAY_ENTRIES_MAX) this.el.firstElementChild!.remove();
    return entry;
  }
}
