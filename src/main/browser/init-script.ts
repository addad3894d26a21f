/**
 * The script every page starts with, popups and frames included, before any page script:
 * - no WebAuthn: PublicKeyCredential is undefined, so sites fall back to a password;
 * - an agent's page stays a visible, focused page to its scripts even when nobody watches;
 * - window.open opens a window of its own (one window per tab, so every tab can be painted).
 */
export const PAGE_INIT_SCRIPT = `(() => {
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
    window.open = function (url, target, features) {
      const f = typeof features === 'string' && features.length ? features : '';
      return open.call(this, url, target, /(^|,)\\s*popup\\b/.test(f) ? f : (f ? f + ',popup' : 'popup'));
    };
  } catch {}
})();`;
