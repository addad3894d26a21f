/**
 * The host's sound extension: each tab a controller listens to is captured on its own with
 * `chrome.tabCapture` (Chromium's own per-tab audio: every stream of the tab and its frames, none
 * of another tab's), in one offscreen document, and sent to the server 20 ms at a time.
 *
 * Every tab is kept muted (a tab opened later is muted as it opens): a tab's own playback never
 * reaches the sink, and a muted tab's capture is still whole, so a tab nobody listens to costs
 * nothing past its page. The host starts Chromium with `--allowlisted-extension-id` of this
 * extension, which lets `tabCapture` take a tab without a press on the extension's button.
 *
 * The worker's calls (by CDP target id, which `chrome.debugger.getTargets` maps to a tab id):
 * `forgeStreamId(targetId)` opens the offscreen document if needed and answers a stream id for
 * that tab; `forgeOffscreen(open)` opens or closes the document; `forgeAudible()` answers the
 * target ids of the tabs playing sound now. The document's calls: `forgeCapture(targetId,
 * streamId)` and `forgeStop(targetId)`; it hands each packet to the binding `forgeSound` as
 * "<targetId> <rate> <base64 of 960 frames of stereo s16le>", and leaves out a packet of silence.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The extension's public key (no private half exists anywhere): it fixes the extension's id, which
 * the host's `--allowlisted-extension-id` names.
 */
const EXTENSION_KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAs/tUjPxxy79gBkCc5dL3kqGDYH0TVAQiFXtOXhE4KFTJ5Np2DAnsS8rqUdwiQW1xVShnOTS5H9UtoNwtVkwLSlMApW4q2o6Q8TSov1IioTyMmJNMu3f3oDAKcYJcr6WPtHK4J8ycHHU7pzcw2wgS8l7rfjHsb7L4CGCOQj6WMLbJfoQRJeFUKdjVNB5Dh/zE2/q0H672/G7rbLxLJdE87xwBLENZwCWEtxIcvBaK4q72fkU2iX1iSkx8HPNqGc6DoRscSmb/x8zht23UcavsgSNKMLlSV8GuroR2maKSbTqK2BO2xYVxfQpACCwYOu+fBa6aLzFkG0saNHT/bvIjBQIDAQAB';

/** Chromium's id of an extension with this key: the key's SHA-256, its first 32 hex digits spelled a–p. */
export const SOUND_EXTENSION_ID = [...createHash('sha256').update(Buffer.from(EXTENSION_KEY, 'base64')).digest('hex').slice(0, 32)]
  .map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('');

/** The offscreen document's file: the server finds its CDP target by this name. */
export const CAPTURE_PAGE = 'capture.html';
/** The binding the document hands packets to. */
export const SOUND_BINDING = 'forgeSound';
/** Frames in one packet: 20 ms at 48 kHz, what the client's jitter buffer is counted in. */
export const PACKET_FRAMES = 960;

/** Tries, and the wait between them in ms, to capture a tab whose last capture is still being let go of (~1 s at most). */
const RECAPTURE_TRIES = 20;
const RECAPTURE_WAIT_MS = 50;

const MANIFEST = {
  manifest_version: 3,
  name: 'forge sound',
  version: '1',
  key: EXTENSION_KEY,
  description: 'Captures the sound of the tabs being listened to, each on its own.',
  permissions: ['tabs', 'debugger', 'tabCapture', 'offscreen'],
  background: { service_worker: 'sound.js' },
};

const WORKER = `
async function tabOf(targetId) {
  for (const t of await chrome.debugger.getTargets()) if (t.id === targetId && t.tabId !== undefined) return t.tabId;
  throw new Error('no tab has target ' + targetId);
}
async function muteAll() {
  for (const tab of await chrome.tabs.query({})) if (!(tab.mutedInfo && tab.mutedInfo.muted)) await chrome.tabs.update(tab.id, { muted: true }).catch(() => undefined);
}
globalThis.forgeOffscreen = async (open) => {
  const has = await chrome.offscreen.hasDocument();
  if (open && !has) await chrome.offscreen.createDocument({ url: '${CAPTURE_PAGE}', reasons: ['USER_MEDIA'], justification: 'the sound of the tabs being listened to' });
  if (!open && has) await chrome.offscreen.closeDocument();
  return true;
};
globalThis.forgeStreamId = async (targetId) => {
  const tabId = await tabOf(targetId);
  await globalThis.forgeOffscreen(true);
  // A capture just stopped is let go of a moment later: taking the tab again waits for it.
  for (let i = 0; ; i++) {
    try { return await chrome.tabCapture.getMediaStreamId({ targetTabId: tabId }); } catch (e) {
      if (i >= ${RECAPTURE_TRIES} || !/active stream/i.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, ${RECAPTURE_WAIT_MS}));
    }
  }
};
globalThis.forgeAudible = async () => {
  const byTab = new Map();
  for (const t of await chrome.debugger.getTargets()) if (t.tabId !== undefined && t.type === 'page') byTab.set(t.tabId, t.id);
  return (await chrome.tabs.query({ audible: true })).map((t) => byTab.get(t.id)).filter((id) => id !== undefined);
};
chrome.tabs.onCreated.addListener((tab) => { void chrome.tabs.update(tab.id, { muted: true }).catch(() => undefined); });
void muteAll();
`;

const CAPTURE_HTML = '<!doctype html><script src="capture.js"></script>\n';

const CAPTURE = `
const FRAMES = ${PACKET_FRAMES};
const captures = new Map();
const s16 = (x) => (x >= 1 ? 32767 : x <= -1 ? -32768 : Math.round(x * 32767));
function base64(bytes) {
  if (bytes.toBase64) return bytes.toBase64();
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x2000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x2000));
  return btoa(s);
}
async function pump(targetId, cap) {
  const out = new Int16Array(FRAMES * 2);
  let at = 0, loud = false, left = new Float32Array(0), right = left;
  for (;;) {
    const { value, done } = await cap.reader.read().catch(() => ({ done: true }));
    if (done || captures.get(targetId) !== cap) { if (value) value.close(); break; }
    const n = value.numberOfFrames, rate = value.sampleRate;
    if (left.length < n) { left = new Float32Array(n); right = new Float32Array(n); }
    value.copyTo(left, { planeIndex: 0, format: 'f32-planar' });
    if (value.numberOfChannels > 1) value.copyTo(right, { planeIndex: 1, format: 'f32-planar' }); else right.set(left.subarray(0, n));
    value.close();
    for (let i = 0; i < n; i++) {
      const l = s16(left[i]), r = s16(right[i]);
      out[2 * at] = l; out[2 * at + 1] = r;
      if (l !== 0 || r !== 0) loud = true;
      if (++at === FRAMES) {
        if (loud && globalThis.${SOUND_BINDING}) globalThis.${SOUND_BINDING}(targetId + ' ' + rate + ' ' + base64(new Uint8Array(out.buffer)));
        at = 0; loud = false;
      }
    }
  }
  cap.track.stop();
  if (captures.get(targetId) === cap) captures.delete(targetId);
}
globalThis.forgeCapture = async (targetId, streamId) => {
  globalThis.forgeStop(targetId);
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { mandatory: { chromeMediaSource: 'tab', chromeMediaSourceId: streamId } } });
  const track = stream.getAudioTracks()[0];
  const cap = { track, reader: new MediaStreamTrackProcessor({ track }).readable.getReader() };
  captures.set(targetId, cap);
  void pump(targetId, cap);
  return true;
};
globalThis.forgeStop = (targetId) => {
  const cap = captures.get(targetId);
  if (!cap) return false;
  captures.delete(targetId);
  cap.track.stop();
  void cap.reader.cancel().catch(() => undefined);
  return true;
};
`;

/** Writes the extension into `dir` (replacing an older copy) and answers `dir`. */
export function writeSoundExtension(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(MANIFEST, null, 2));
  writeFileSync(join(dir, 'sound.js'), WORKER);
  writeFileSync(join(dir, CAPTURE_PAGE), CAPTURE_HTML);
  writeFileSync(join(dir, 'capture.js'), CAPTURE);
  return dir;
}
