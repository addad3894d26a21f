/**
 * The cdp worker of one browser host: its own CDP connection for window placement, XDamage on
 * the host's display, and the damage capture into the host's FrameRing. Tabs nobody watches are
 * parked off-screen and never read.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { reportHeap } from '../thread-heaps.js';
import { FrameRing } from '../../shared/ring.js';
import { isForgeError } from '../../shared/errors.js';
import { CdpConnection } from './connection.js';
import { DamageWatch } from './damage.js';
import { Framebuffer } from './framebuffer.js';
import { HostCapture } from './capture.js';
import { WindowPlacer } from './windows.js';
import { PopupWindows } from './popups.js';
import { CAPTURE_REPORT_EVERY, type CdpWorkerData, type FromCdp, type ToCdp } from './protocol.js';
import { CAPTURE_MAX_HEIGHT, CAPTURE_MAX_WIDTH } from '../../shared/capture.js';
import { nameThread } from '../thread-name.js';

nameThread('forge-capture');

const data = workerData as CdpWorkerData;
reportHeap(data.heap);
const port = parentPort!;
const post = (m: FromCdp): void => port.postMessage(m);

const ring = new FrameRing(data.frameRing, data.frameRingSlots, CAPTURE_MAX_WIDTH, CAPTURE_MAX_HEIGHT);
const fb = new Framebuffer(data.fbDir);
const capture = new HostCapture(ring, fb, (f, t) => {
  data.frames.postMessage(f);
  if (t.stats.frames % CAPTURE_REPORT_EVERY === 0) {
    post({ t: 'captured', frame: t.frame, seq: t.seq, frames: t.stats.frames, skippedNoSlot: t.stats.skippedNoSlot, captureMs: t.stats.captureMs });
  }
}, (heldBytes) => post({ t: 'ring', heldBytes }), (total) => post({ t: 'late_first_pictures', total }));
const cdp = await CdpConnection.connect(data.wsEndpoint);
const damage = await DamageWatch.open(data.display, (r) => capture.damage(r), (why) => post({ t: 'error', message: `the display's damage stream ended: ${why}` }));
const windows = new WindowPlacer(cdp, () => damage.caughtUp(), (r) => damage.repaint(r));
/** Flat CDP sessions of the page targets we placed, by targetId. */
const sessions = new Map<string, string>();
// Without XTest a select's list can still be driven with the keys; the pipeline says so when it starts.
const popups = await PopupWindows.open(data.display, (open) => post({ t: 'popups', open })).catch((e: Error) => e);

async function sessionFor(targetId: string): Promise<string> {
  let s = sessions.get(targetId);
  if (!s) {
    s = (await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true })).sessionId;
    sessions.set(targetId, s);
  }
  return s;
}

cdp.on('Target.detachedFromTarget', (p: { sessionId: string; targetId?: string }) => {
  for (const [target, s] of sessions) if (s === p.sessionId) sessions.delete(target);
});
cdp.on('Target.targetDestroyed', (p: { targetId: string }) => {
  sessions.delete(p.targetId);
  const t = capture.byTarget(p.targetId);
  if (t) capture.unwatch(t.frame);
  windows.forget(p.targetId);
});
// Every new page window is parked off-screen until someone watches it, so it covers no tile.
cdp.on('Target.targetCreated', (p: { targetInfo: { type: string; targetId: string } }) => {
  if (p.targetInfo.type !== 'page' || capture.byTarget(p.targetInfo.targetId)) return;
  windows.park(p.targetInfo.targetId).catch(() => undefined);
});
await cdp.send('Target.setDiscoverTargets', { discover: true });

// Requests on one window are serialized: a capture and an uncapture of one tab never interleave.
let queue: Promise<void> = Promise.resolve();

async function handle(m: ToCdp): Promise<void> {
  switch (m.t) {
    case 'capture': {
      if (m.w > CAPTURE_MAX_WIDTH || m.h > CAPTURE_MAX_HEIGHT || m.w < 1 || m.h < 1) {
        post({ t: 'failed', id: m.id, message: `a watched tab's viewport is at most ${CAPTURE_MAX_WIDTH}x${CAPTURE_MAX_HEIGHT}; ${m.w}x${m.h} was asked` });
        return;
      }
      const other = capture.get(m.frame);
      if (other && other.targetId !== m.targetId) {
        post({ t: 'failed', id: m.id, message: `frame id ${m.frame} is already captured from another page` });
        return;
      }
      const sessionId = await sessionFor(m.targetId);
      const placed = await windows.place(m.targetId, sessionId, m.w, m.h);
      capture.watch(m.targetId, m.frame, placed.viewport, placed.paintFrom);
      post({ t: 'capturing', id: m.id, targetId: m.targetId, frame: m.frame, viewport: placed.viewport });
      return;
    }
    case 'uncapture': {
      const t = capture.byTarget(m.targetId);
      if (t) capture.unwatch(t.frame);
      await windows.unnarrow(m.targetId, sessions.get(m.targetId));
      await windows.park(m.targetId).catch(() => undefined);
      post({ t: 'uncaptured', id: m.id, targetId: m.targetId });
      return;
    }
    case 'screen_mouse':
      if (popups instanceof PopupWindows) popups.mouse(m.action, m.x, m.y, m.button);
      post({ t: 'screen_moused', id: m.id });
      return;
    case 'stop':
      capture.stop();
      damage.close();
      if (popups instanceof PopupWindows) popups.close();
      fb.close();
      await cdp.close();
      post({ t: 'stopped' });
      port.close();
      return;
  }
}

port.on('message', (m: ToCdp) => {
  // A hand on the screen does not wait behind a window being placed.
  if (m.t === 'screen_mouse') { void handle(m); return; }
  queue = queue.then(() => handle(m)).catch((e: unknown) => {
    const message = isForgeError(e) ? e.message : `capture failed: ${(e as Error).message}`;
    post('id' in m ? { t: 'failed', id: m.id, message } : { t: 'error', message });
  });
});

post({
  t: 'ready',
  framebuffer: fb.unmappedBecause ? `read with pread: ${fb.unmappedBecause}` : 'mapped',
  popups: popups instanceof PopupWindows ? 'watched' : `not watched: ${popups.message}`,
});
