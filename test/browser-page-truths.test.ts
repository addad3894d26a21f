import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest, type TestPages } from './fixtures.js';

let pages: TestPages;
let a: Agent;

const it = forgeTest({}, {
  // The title is set by the page's very first script.
  '/': '<html><head><script>document.title = "webauthn:" + typeof PublicKeyCredential</script></head><body><button onclick="window.open(\'/pop\')">Pop</button><ul><li><button>Save</button></li><li><button>Save</button></li></ul><button>Only</button><div id="gone"><button>Vanish</button></div></body></html>',
  '/pop': '<html><head><script>document.title = "popup webauthn:" + typeof PublicKeyCredential</script></head><body>pop</body></html>',
});

it.beforeAll(async ({ pages: p, agentFor }) => {
  pages = p;
  a = await agentFor('default/truths/lead');
});

describe('what a page sees', () => {
  it('no page exposes WebAuthn, from its first script on', async () => {
    const r = await a.call('browser_navigate', { url: pages.url });
    expect(r.text).toContain('webauthn:undefined');
  });

  it('a page is visible and focused to its scripts while nobody watches', async () => {
    const r = await a.call('browser_evaluate', { function: '() => [document.visibilityState, document.hasFocus()]' });
    expect(r.text.replace(/\s/g, '')).toContain('["visible",true]');
  });

  it('a popup has no WebAuthn either', async () => {
    const snap = await a.call('browser_snapshot');
    const ref = /button "Pop" \[ref=((?:f\d+)?e\d+)\]/.exec(snap.text)![1];
    await a.call('browser_click', { ref });
    const r = await a.call('browser_evaluate', { function: '() => document.title' });
    expect(r.text).toContain('popup webauthn:undefined');
    await a.call('browser_close');
  });
});

describe('refs and selectors are never guessed', () => {
  it('a role selector matching two elements is refused with what to do', async () => {
    const r = await a.call('browser_click', { ref: 'role=button[name="Save"]' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/matches 2 elements .* use a ref from a fresh browser_snapshot, or scope the selector/);
  });

  it('a unique role selector is resolved when the call runs', async () => {
    const r = await a.call('browser_click', { ref: 'role=button[name="Only"]' });
    expect(r.isError).toBe(false);
  });

  it('an element named as the snapshot line writes it (role and name, or the line with its ref) is that element', async () => {
    const snap = await a.call('browser_snapshot');
    const line = /button "Only"[^\n]*\[ref=(?:f\d+)?e\d+\]/.exec(snap.text)![0];
    expect((await a.call('browser_click', { target: 'button "Only"' })).isError).toBe(false);
    expect((await a.call('browser_click', { target: line })).isError).toBe(false);
    // Two buttons named Save: the role and name alone stay ambiguous, and are refused as a selector would be.
    expect((await a.call('browser_click', { target: 'button "Save"' })).text).toMatch(/matches 2 elements/);
  });

  it('a ref whose element is gone is refused, asking for a fresh snapshot', async () => {
    const snap = await a.call('browser_snapshot');
    const ref = /button "Vanish" \[ref=((?:f\d+)?e\d+)\]/.exec(snap.text)![1];
    await a.call('browser_evaluate', { function: '() => document.getElementById("gone").remove()' });
    const r = await a.call('browser_click', { ref });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`ref ${ref} does not resolve`);
    expect(r.text).toContain('take a fresh browser_snapshot');
  });
});
