/** A small element builder: the client draws with plain DOM, no framework. */

type Attrs = Record<string, string | number | boolean | undefined | null | EventListener>;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}

/**
 * Makes `parent`'s children exactly `nodes`, in order, touching only what is out of place: an
 * element left where it was keeps a press under way (a click needs its press and release on the
 * same element, and a redraw that replaced it would lose the click).
 */
export function place(parent: Element, nodes: Node[]): void {
  nodes.forEach((n, i) => { if (parent.childNodes[i] !== n) parent.insertBefore(n, parent.childNodes[i] ?? null); });
  while (parent.childNodes.length > nodes.length) parent.lastChild!.remove();
}

/**
 * Elements kept by key while what they were drawn from is unchanged, so a push that changes
 * nothing of theirs leaves them (and a press on them) alone.
 */
export class KeptElements<T> {
  private readonly kept = new Map<string, { el: HTMLElement; drawn: string }>();

  constructor(
    private readonly key: (item: T) => string,
    /** What an item's element shows, as JSON-able data: a change redraws it. */
    private readonly drawnFrom: (item: T) => unknown,
    private readonly build: (item: T) => HTMLElement,
  ) {}

  /** Makes `parent`'s children one element per item, in order, building only those that changed. */
  draw(parent: Element, items: T[]): void {
    const keys = new Set<string>();
    const els = items.map((item) => {
      const k = this.key(item);
      keys.add(k);
      const drawn = JSON.stringify(this.drawnFrom(item));
      let e = this.kept.get(k);
      if (e?.drawn !== drawn) {
        e = { el: this.build(item), drawn };
        this.kept.set(k, e);
      }
      return e.el;
    });
    for (const k of this.kept.keys()) if (!keys.has(k)) this.kept.delete(k);
    place(parent, els);
  }
}
