/** The terminal surface's own chrome: the bar over the screen, and the 44 px key bar. */
export const SURFACE_CSS = `
.term-surface { position: fixed; inset: 0; display: flex; flex-direction: column; background: var(--term-background, #16181d); color: var(--term-foreground, #d8dee9); z-index: 10; font: 14px system-ui, sans-serif; }
.term-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 6px 10px; background: var(--bar-bg, #20232b); border-bottom: 1px solid #333845; }
.term-bar button { min-height: 44px; min-width: 44px; padding: 0 12px; border-radius: 6px; border: 1px solid #4b5263; background: #2c313c; color: inherit; font: inherit; cursor: pointer; }
.term-bar button:disabled { opacity: .5; cursor: default; }
.term-title { font-family: ui-monospace, monospace; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 40ch; }
.term-state { flex: 1; min-width: 10ch; color: #e5c07b; }
.term-handoff { display: inline-flex; gap: 6px; align-items: center; }
.term-handoff[hidden] { display: none; }
.term-screen { flex: 1; min-height: 0; padding: 4px; overflow: hidden; }
.term-surface.term-embedded { position: relative; inset: auto; height: 100%; z-index: auto; }
.term-bar.term-controls { background: none; border: 0; padding: 0; }
.term-keybar { display: flex; flex-wrap: wrap; gap: 4px; padding: 4px; background: #20232b; border-top: 1px solid #333845; }
.term-keybar button { min-width: 44px; min-height: 44px; flex: 1 0 44px; border-radius: 6px; border: 1px solid #4b5263; background: #2c313c; color: inherit; font: 16px ui-monospace, monospace; }
.term-keybar button[aria-pressed="true"] { background: #61afef; color: #16181d; }
.term-keybar button:disabled { opacity: .5; }
`;
