/**
 * The host's sound extension: Chromium's own tab mute, driven over CDP, so that only the tab a
 * controller listens to plays into the host's sink. No CDP domain mutes a tab; `chrome.tabs`
 * does, and a muted tab's stream is corked in the sink (nothing of it is mixed in), which makes
 * the sink's monitor that one tab's sound exactly.
 *
 * The worker's `forgeListen(targetId | null)` unmutes that tab (by its CDP target id, which
 * `chrome.debugger.getTargets` maps to a tab id) and mutes every other; a tab opened later is
 * muted as it opens. `forgeAudible()` answers the target ids of the tabs playing sound now.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MANIFEST = {
  manifest_version: 3,
  name: 'forge sound',
  version: '1',
  description: 'Mutes every tab but the one being listened to.',
  permissions: ['tabs', 'debugger', 'storage'],
  background: { service_worker: 'sound.js' },
};

const WORKER = `
async function listened() {
  return (await chrome.storage.session.get('listened')).listened ?? null;
}
async function tabTargets() {
  const byTab = new Map();
  for (const t of await chrome.debugger.getTargets()) if (t.tabId !== undefined && t.type === 'page') byTab.set(t.tabId, t.id);
  return byTab;
}
async function apply() {
  const want = await listened();
  const byTab = await tabTargets();
  for (const tab of await chrome.tabs.query({})) {
    const muted = want === null || byTab.get(tab.id) !== want;
    if ((tab.mutedInfo && tab.mutedInfo.muted) !== muted) await chrome.tabs.update(tab.id, { muted }).catch(() => undefined);
  }
}
globalThis.forgeListen = async (targetId) => {
  await chrome.storage.session.set({ listened: targetId });
  await apply();
  return true;
};
globalThis.forgeAudible = async () => {
  const byTab = await tabTargets();
  return (await chrome.tabs.query({ audible: true })).map((t) => byTab.get(t.id)).filter((id) => id !== undefined);
};
chrome.tabs.onCreated.addListener(() => { void apply(); });
void apply();
`;

/** Writes the extension into `dir` (replacing an older copy) and answers `dir`. */
export function writeSoundExtension(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(MANIFEST, null, 2));
  writeFileSync(join(dir, 'sound.js'), WORKER);
  return dir;
}
