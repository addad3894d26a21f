/**
 * The home's live thumbnails: one kept <img> per tab, told to the server (`thumbs`) only while
 * the page is visible (document.visibilityState) and only for the images on screen
 * (IntersectionObserver), so a home in a background window or scrolled past a card costs the
 * server nothing. Each `thumb` push replaces its tab's picture.
 */
import type { Connection } from './connection.js';
import { h } from './dom.js';

/** How long a change of what is on screen waits to be told, ms: a scroll tells the server once, not per pixel. */
const THUMBS_TELL_DELAY_MS = 150;

export class ThumbWatch {
  private readonly imgs = new Map<string, HTMLImageElement>();
  private readonly urls = new Map<string, string>();
  private readonly onScreen = new Set<string>();
  private readonly observer: IntersectionObserver;
  private told = '';
  private timer: number | undefined;

  constructor(private readonly conn: Connection) {
    this.observer = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const id = (e.target as HTMLElement).dataset.pageId!;
        if (e.isIntersecting) this.onScreen.add(id);
        else this.onScreen.delete(id);
      }
      this.schedule();
    });
    document.addEventListener('visibilitychange', () => this.tell());
    conn.onState((s) => { if (s === 'open') { this.told = ''; this.tell(); } });
    conn.onMessage((m) => {
      if (m.t !== 'thumb') return;
      const { pageId, webp } = m;
      const img = this.imgs.get(pageId);
      if (!img) return;
      const old = this.urls.get(pageId);
      const url = URL.createObjectURL(new Blob([webp as BlobPart], { type: 'image/webp' }));
      this.urls.set(pageId, url);
      img.src = url;
      img.dataset.frames = String(Number(img.dataset.frames ?? '0') + 1);
      if (old) img.addEventListener('load', () => URL.revokeObjectURL(old), { once: true });
    });
  }

  /** The tab's picture, the same element across redraws of its row. */
  imgFor(pageId: string): HTMLImageElement {
    let img = this.imgs.get(pageId);
    if (!img) {
      img = h('img', { class: 'tab-thumb', alt: '', 'data-page-id': pageId, 'data-frames': '0' });
      this.imgs.set(pageId, img);
      this.observer.observe(img);
    }
    return img;
  }

  /** Tabs gone from the list: their pictures and observers go too. */
  keep(pageIds: Set<string>): void {
    for (const [id, img] of this.imgs) {
      if (pageIds.has(id)) continue;
      this.observer.unobserve(img);
      this.imgs.delete(id);
      this.onScreen.delete(id);
      const url = this.urls.get(id);
      if (url) URL.revokeObjectURL(url);
      this.urls.delete(id);
    }
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.tell(), THUMBS_TELL_DELAY_MS);
  }

  private tell(): void {
    const ids = document.visibilityState === 'visible' ? [...this.onScreen].filter((id) => this.imgs.get(id)?.isConnected).sort() : [];
    const key = ids.join(',');
    if (key === this.told) return;
    if (this.conn.send({ t: 'thumbs', pageIds: ids })) this.told = key;
  }
}
