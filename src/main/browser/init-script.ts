/**
 * The script every page starts with, popups and frames included, before any page script:
 * - no WebAuthn: PublicKeyCredential is undefined, so sites fall back to a password;
 * - an agent's page stays a visible, focused page to its scripts even when nobody watches;
 * - window.open opens a window of its own (one window per tab, so every tab can be painted), and
 *   so does a link that would open a new tab;
 * - the spec's popup rules: a subframe's window.open answers null for every web address but the
 *   top frame's own origin, a cross-origin subframe's for every address, and a second popup at
 *   another site from the same page answers null (and never commits) while the first is live.
 *   Each refusal is told to forge through OPEN_REFUSED_BINDING, for the tab's owner to read.
 *   The server judges every popup's first load by the same rules (popup-gate.ts), for the ways
 *   to open a window this script does not see.
 */

import { siteOf } from './popup-gate.js';

/** The page-side name of forge's binding that hears a refused window.open: its argument is `OpenRefusal`. */
export const OPEN_REFUSED_BINDING = '__forgeOpenRefused';

/** Which popup rule refused a window.open. */
export type OpenRule = 'cross-origin-frame' | 'frame-other-origin' | 'second-cross-site';
/**
 * `atLoad`: caught by the server at the window's first load (popup-gate.ts), not refused by
 * window.open in the page; `link`: the page refused a link's new window, not a script's window.open.
 */
export interface OpenRefusal { rule: OpenRule; url: string; frame: string; atLoad?: boolean; link?: boolean }

export const PAGE_INIT_SCRIPT = `(() => {
  // A site as the popup rules count it (popup-gate.ts, whose judge of a popup's first load counts it the same).
  const siteOf = ${siteOf.toString()};
  try { delete window.PublicKeyCredential; } catch {}
  try {
    const c = navigator.credentials;
    if (c) for (const verb of ['create', 'get']) {
      const real = c[verb].bind(c);
      c[verb] = (o) => (o && o.publicKey) ? Promise.reject(new DOMException('WebAuthn is not available in this browser', 'NotSupportedError')) : real(o);
    }
  } catch {}
  try {
    Object.defineProperty(Document.prototype, 'visibilityState', { get() { return 'visible'; }, configurable: true });
    Object.defineProperty(Document.prototype, 'hidden', { get() { return false; }, configurable: true });
    Document.prototype.hasFocus = function hasFocus() { return true; };
  } catch {}
  try {
    const open = window.open;
    const top = window.top;
    /** Windows this document opened at another site, with the names they were opened under. */
    const crossSite = [];
    // \`link\`: the open is a link's (see inOwnWindow), not a script's window.open.
    const refused = (rule, asked, link) => {
      try { const tell = window[${JSON.stringify(OPEN_REFUSED_BINDING)}]; if (tell) tell({ rule, url: String(asked).slice(0, 300), frame: String(location.href).slice(0, 300), ...(link ? { link: true } : {}) }); } catch {}
      return null;
    };
    const openWindow = (url, target, features, link) => {
      const f = typeof features === 'string' && features.length ? features : '';
      let dest;
      try { dest = new URL(url === undefined || url === null || url === '' ? 'about:blank' : String(url), location.href); } catch { dest = undefined; }
      const web = !!dest && (dest.protocol === 'http:' || dest.protocol === 'https:');
      if (window !== top) {
        let topOrigin;
        try { topOrigin = top.location.origin; } catch {}
        // A cross-origin subframe opens nothing; a same-origin one only the top frame's own origin (a blank window is its own origin, which is the top's).
        if (topOrigin === undefined) return refused('cross-origin-frame', url, link);
        if (web && dest.origin !== topOrigin) return refused('frame-other-origin', url, link);
      }
      const name = typeof target === 'string' ? target : '';
      const noOpener = /(^|,)\\s*no(opener|referrer)\\b/i.test(f);
      const other = web && !noOpener && siteOf(dest) !== siteOf(location);
      if (other) {
        for (let i = crossSite.length - 1; i >= 0; i--) if (crossSite[i].w.closed) crossSite.splice(i, 1);
        // A named open that reaches the live popup navigates that popup: it is not a second one.
        const reuses = name && name !== '_blank' && crossSite.some((c) => c.name === name);
        if (crossSite.length && !reuses) return refused('second-cross-site', url, link);
      }
      const w = open.call(window, url, target, /(^|,)\\s*popup\\b/.test(f) ? f : (f ? f + ',popup' : 'popup'));
      if (other && w) crossSite.push({ w, name });
      return w;
    };
    window.open = function (url, target, features) { return openWindow(url, target, features, false); };
    // A link that would open a new tab (target=_blank or a window name, a Ctrl, Shift or Meta
    // click, a middle click) opens a window of its own as window.open does here: a tab Chromium
    // opened in its opener's window would hide the opener, which then paints no frame.
    const inOwnWindow = (e) => {
      if (e.defaultPrevented || (e.type === 'auxclick' && e.button !== 1)) return;
      const a = e.composedPath().find((n) => n instanceof Element && (n.localName === 'a' || n.localName === 'area') && n.hasAttribute('href'));
      if (!a || a.hasAttribute('download')) return;
      const name = (a.getAttribute('target') || '').trim();
      const asTab = e.ctrlKey || e.metaKey || e.shiftKey || e.button === 1;
      if (!asTab && (!name || /^_(self|top|parent)$/i.test(name))) return;
      const rel = ' ' + (a.getAttribute('rel') || '').toLowerCase() + ' ';
      const noReferrer = /\\snoreferrer\\s/.test(rel);
      // A new tab from a link has no opener unless rel says opener (Chromium's own rule for _blank).
      const noOpener = noReferrer || /\\snoopener\\s/.test(rel) || ((asTab || name.toLowerCase() === '_blank') && !/\\sopener\\s/.test(rel));
      e.preventDefault();
      const go = () => openWindow(a.href, asTab ? '_blank' : name, [noOpener && 'noopener', noReferrer && 'noreferrer'].filter(Boolean).join(','), true);
      // Opened inside a Ctrl or middle click, the window would be a background tab again (Chromium
      // reads the keys of the event being handled): it opens a moment later, the click's
      // activation still fresh.
      if (asTab) setTimeout(go, 0); else go();
    };
    window.addEventListener('click', inOwnWindow);
    window.addEventListener('auxclick', inOwnWindow);
  } catch {}
})();`;
