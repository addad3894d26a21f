/** The frame worker: decodes WebP frames and draws them on the transferred canvas, off the page's thread. */
import { Compositor } from './compositor.js';
import type { FromFrameWorker, ToFrameWorker } from './protocol.js';
import { FRAME_REPORT_MS } from '../limits.js';

let compositor: Compositor | null = null;
let reported = '';

const paint = (cb: () => void): void => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(cb);
  else setTimeout(cb, 0);
};

self.onmessage = (e: MessageEvent<ToFrameWorker>) => {
  const m = e.data;
  switch (m.t) {
    case 'canvas':
      compositor = new Compositor(m.canvas, paint);
      compositor.onBehind = () => (self as unknown as Worker).postMessage({ t: 'behind' } satisfies FromFrameWorker);
      break;
    case 'box': compositor?.setBox(m.w, m.h, m.dpr, m.background); break;
    case 'frame': compositor?.push(m.data); break;
    case 'reset': compositor?.reset(); break;
  }
};

setInterval(() => {
  if (!compositor) return;
  const now = JSON.stringify(compositor.stats);
  if (now === reported) return;
  reported = now;
  (self as unknown as Worker).postMessage({ t: 'stats', stats: { ...compositor.stats } } satisfies FromFrameWorker);
}, FRAME_REPORT_MS);
