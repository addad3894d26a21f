/**
 * The frame path for tests: a real host (Xvfb + headful Chromium), its capture and encode
 * workers, the real relay worker on uWS with the host as frame source 1, the test pages over
 * HTTP, and a CDP connection to open tabs with.
 */
import { Worker } from 'node:worker_threads';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { BrowserHost } from '../../dist/src/main/browser/host/host.js';
import { FramePipeline, type PipelineOptions } from '../../dist/src/main/browser/host/pipeline.js';
import { CdpConnection } from '../../dist/src/workers/cdp/connection.js';
import { PARK_LEFT } from '../../dist/src/workers/cdp/windows.js';
import type { FromRelay, RelayWorkerData, ToRelay } from '../../dist/src/workers/relay/protocol.js';
import { linkKeyPair, publishedKey } from '../../dist/src/workers/relay/link-keys.js';

/** The test pages (each paints its timestamp into its bottom-left corner). */
const PAGES = join(process.cwd(), 'bench', 'pages');
export const RIG_TOKEN = 'test-token';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class FrameRig {
  relayPort = 0;
  private constructor(
    readonly host: BrowserHost,
    readonly pipeline: FramePipeline,
    readonly relay: Worker,
    readonly cdp: CdpConnection,
    private readonly pages: Server,
    readonly pagesBase: string,
    private readonly profileDir: string,
    /** Viewer ids in the order their sockets opened. */
    readonly opened: number[],
  ) {}

  /** Starts it all; `extraPages` serves more pages by path (`/noise.html` → its HTML); `opts` chooses the encoder. */
  static async start(label: string, extraPages: Record<string, string> = {}, opts: PipelineOptions = {}): Promise<FrameRig> {
    const pages = createServer((req, res) => {
      const path = (req.url ?? '/').replace(/\?.*$/, '');
      if (extraPages[path] !== undefined) { res.end(extraPages[path]); return; }
      try { res.end(readFileSync(join(PAGES, path))); } catch { res.statusCode = 404; res.end(); }
    });
    await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
    const pagesBase = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
    const profileDir = mkdtempSync(join(tmpdir(), `forge-${label}-`));
    const host = new BrowserHost({ profileKey: `test/${label}`, profileDir });
    await host.start();
    const pipeline = await FramePipeline.start(host, opts);
    const relay = new Worker(join(process.cwd(), 'dist/src/workers/relay/worker.js'), {
      workerData: { host: '127.0.0.1', port: 0, agentKey: 'fa_rig-agent-key', viewerToken: RIG_TOKEN, tokens: [], linkKey: publishedKey(linkKeyPair().publicKey), profilesRoot: join(process.cwd(), 'dist/rig-no-profiles'), org: 'test', webDir: join(process.cwd(), 'dist/web'), mcpPort: 1 } satisfies RelayWorkerData,
    });
    // Listened to at once: a worker's message with no listener yet is lost, and 'listening' may come before the CDP connection is up.
    const opened: number[] = [];
    const listening = new Promise<number>((resolve) => {
      relay.on('message', (m: FromRelay) => {
        if (m.t === 'listening') resolve(m.port);
        if (m.t === 'open') opened.push(m.viewer);
      });
    });
    const cdp = await CdpConnection.connect(host.wsEndpoint);
    const rig = new FrameRig(host, pipeline, relay, cdp, pages, pagesBase, profileDir, opened);
    rig.relayPort = await listening;
    const src = pipeline.relaySource();
    relay.postMessage({ t: 'frame_source', source: 1, ...src } satisfies ToRelay, [src.port]);
    return rig;
  }

  post(m: ToRelay): void { this.relay.postMessage(m); }

  /** The id of the viewer whose socket opens next (after `before` had opened). */
  async nextViewer(before: number): Promise<number> {
    while (this.opened.length === before) await sleep(5);
    return this.opened[this.opened.length - 1]!;
  }

  async openTab(page: string): Promise<string> {
    // Off-screen from the start, as the server opens tabs.
    const { targetId } = await this.cdp.send<{ targetId: string }>('Target.createTarget', { url: `${this.pagesBase}/${page}.html`, newWindow: true, left: PARK_LEFT, top: 0 });
    return targetId;
  }

  async stop(): Promise<void> {
    await this.cdp.close();
    await this.pipeline.stop();
    this.relay.postMessage({ t: 'stop' });
    await sleep(100);
    await this.relay.terminate();
    await this.host.stop();
    this.pages.close();
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}

/** A real ws viewer of a rig's relay; subclasses read its frames. */
export class RigViewer {
  readonly ws: WebSocket;
  id = 0;
  constructor(protected readonly rig: FrameRig) {
    this.ws = new WebSocket(`ws://127.0.0.1:${rig.relayPort}/ws?token=${RIG_TOKEN}`);
    this.ws.binaryType = 'nodebuffer';
  }
  async open(): Promise<this> {
    const before = this.rig.opened.length;
    await new Promise((r) => this.ws.once('open', r));
    this.id = await this.rig.nextViewer(before);
    return this;
  }
  watch(tab: number | null): void { this.rig.post({ t: 'watch', viewer: this.id, source: 1, frame: tab }); }
  close(): void { this.ws.terminate(); }
}
