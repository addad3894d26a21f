/** Frames recorded from the real pipeline (a live host, capture and encode) for the replaying benches. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserHost } from '../src/main/browser/host/host.js';
import { FramePipeline } from '../src/main/browser/host/pipeline.js';
import { CdpConnection } from '../src/workers/cdp/connection.js';
import { WebpRing } from '../src/shared/ring.js';
import type { EncodedFrame } from '../src/workers/encode/protocol.js';
import { servePages, sleep } from './harness.js';
import type { Recorded } from './replay.js';

/** Frames recorded per page: two seconds of a 60 Hz page. */
const RECORD_FRAMES = 120;

/** The anim page's frames (~32 KB whole frames) and the simple page's (small patches) at 1280×720. */
export async function record(): Promise<Record<'anim' | 'simple', Recorded[]>> {
  const { server, base } = await servePages();
  const profileDir = mkdtempSync(join(tmpdir(), 'forge-bench-record-'));
  const host = new BrowserHost({ profileKey: 'bench/record', profileDir });
  await host.start();
  const pipeline = await FramePipeline.start(host);
  const src = pipeline.relaySource();
  const ring = new WebpRing(src.webpRing, src.webpRingSlots, src.webpSlotBytes);
  const cdp = await CdpConnection.connect(host.wsEndpoint);
  const out: Record<string, Recorded[]> = {};
  let sink: Recorded[] = [];
  src.port.on('message', (m: EncodedFrame) => {
    const f = ring.take(m.slot, m.frame, m.seq);
    if (!f) return;
    if (sink.length < RECORD_FRAMES) sink.push({ flags: f.flags, parts: f.parts.map((p) => new Uint8Array(p)) });
    ring.done(m.slot);
  });
  try {
    for (const page of ['anim', 'simple'] as const) {
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `${base}/${page}.html`, newWindow: true });
      await sleep(500);
      sink = [];
      await pipeline.capture(targetId, 1, 1280, 720);
      while (sink.length < RECORD_FRAMES) await sleep(50);
      out[page] = sink;
      await pipeline.uncapture(targetId);
      await cdp.send('Target.closeTarget', { targetId });
    }
  } finally {
    await cdp.close();
    await pipeline.stop();
    await host.stop();
    server.close();
    rmSync(profileDir, { recursive: true, force: true });
  }
  return out as Record<'anim' | 'simple', Recorded[]>;
}
