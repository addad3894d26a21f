/** The terminal surface's own chrome: the bar over the screen, and the 44 px key bar. */
export const SURFACE_CSS = `
.term-surface { position: fixed; inset: 0; display: flex; flex-direction: column; background: var(--term-background); color: var(--term-foreground); z-index: 10; font: 14px system-ui, sans-serif; }
.term-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 6px 10px; background: var(--panel); border-bottom: 1px solid var(--line); }
.term-bar button { min-height: 44px; min-width: 44px; padding: 0 12px; border-radius: 6px; border: 1px solid var(--control-line); background: var(--control); color: inherit; font: inherit; cursor: pointer; }
.term-bar button:disabled { opacity: .5; cursor: default; }
.term-title { font-family: ui-monospace, monospace; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 40ch; }
.term-state { flex: 1; min-width: 10ch; color: var(--warn); }
.term-handoff { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; min-width: 0; }
.term-reason { overflow-wrap: anywhere; }
.term-handoff[hidden] { display: none; }
.term-screen { flex: 1; min-height: 0; padding: 4px; overflow: hidden; }
.term-surface.term-embedded { position: relative; inset: auto; height: 100%; z-index: auto; }
.term-bar.term-controls { background: none; border: 0; padding: 0; }
.term-keybar { display: flex; flex-wrap: wrap; gap: 4px; padding: 4px; background: var(--panel); border-top: 1px solid var(--line); }
.term-keybar button { min-width: 44px; min-height: 44px; flex: 1 0 44px; padding: 0; border-radius: 6px; border: 1px solid var(--control-line); background: var(--control); color: inherit; font: 15px ui-monospace, monospace; }
.term-keybar button[aria-pressed="true"] { background: var(--accent); color: var(--on-accent); }
.term-keybar button:disabled { opacity: .5; }
`;
