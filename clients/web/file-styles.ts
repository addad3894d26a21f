/**
 * The looks of the file chooser's prompt and the downloads tray, added to the page once by the
 * modules that draw them, so they ship with their code.
 */
const CSS = `
.chooser-prompt {
  position: absolute; z-index: 5; left: 50%; top: 12px; transform: translateX(-50%);
  width: min(440px, calc(100% - 24px)); box-sizing: border-box; padding: 12px 14px;
  background: var(--panel); border: 1px solid var(--accent); border-radius: 10px; box-shadow: 0 8px 24px #000a;
}
.chooser-words { margin: 0 0 4px; }
.chooser-hint { margin: 0 0 8px; color: var(--muted); font-size: 12px; }
.chooser-actions, .tray-actions { display: flex; gap: 6px; flex-wrap: wrap; justify-content: flex-end; }
.chooser-actions button, .tray-entry button, .tray-save {
  min-height: 44px; min-width: 44px; padding: 0 14px; box-sizing: border-box; display: inline-flex; align-items: center; justify-content: center;
  border: 1px solid var(--line); border-radius: 6px; background: transparent; color: var(--fg); font: inherit; cursor: pointer; text-decoration: none;
}
.chooser-actions .chooser-choose, .tray-save { border-color: var(--accent); color: var(--accent); }
/* Bottom right, and never as tall as the screen: the bar on top stays reachable. */
.downloads-tray {
  position: fixed; z-index: 110; right: max(12px, env(safe-area-inset-right)); bottom: max(12px, env(safe-area-inset-bottom));
  width: min(380px, calc(100vw - 24px)); max-height: min(60vh, calc(100dvh - 180px)); overflow-y: auto;
  display: grid; gap: 6px; align-content: end;
}
.downloads-tray:empty { display: none; }
.tray-entry {
  display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: center; gap: 4px 8px;
  padding: 6px 8px 6px 12px; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; box-shadow: 0 8px 24px #000a;
}
.tray-entry[data-tone="refusal"] { border-color: var(--refuse); }
.tray-title { margin: 0; font-weight: 600; }
.tray-words { margin: 0; color: var(--muted); overflow-wrap: anywhere; font-size: 12px; }
.tray-entry[data-tone="refusal"] .tray-words { color: var(--refuse); }
`;

let added = false;

export function addFileStyles(): void {
  if (added) return;
  added = true;
  const style = document.createElement('style');
  style.dataset.for = 'files';
  style.textContent = CSS;
  document.head.append(style);
}
