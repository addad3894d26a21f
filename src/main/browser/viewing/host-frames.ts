/**
 * The frame pipelines of watched hosts, one per host, and the frame id each shown tab's frames
 * carry: a pipeline starts with its host's first viewer and hands the relay its frame source.
 */
import { FramePipeline } from '../host/pipeline.js';
import type { BrowserHost } from '../host/host.js';
import type { ViewerHub } from '../../viewers.js';
import { log } from '../../logging.js';
import type { Tab } from '../tabs.js';

export interface HostFrames { pipeline: FramePipeline; source: number }

export class HostFrameSources {
  private frames = new Map<BrowserHost, Promise<HostFrames>>();
  /** The pipelines started and not stopped, by host: what /metrics reads. */
  private readonly running = new Map<BrowserHost, FramePipeline>();
  private nextSource = 1;
  /** Frame ids are unique across hosts, so one relay can serve every host's tabs. */
  private frameIds = new WeakMap<Tab, number>();
  private nextFrameId = 1;

  constructor(private readonly hub: ViewerHub) {}

  /** The host's pipeline, started on first ask. */
  of(host: BrowserHost): Promise<HostFrames> {
    let f = this.frames.get(host);
    if (!f) {
      f = FramePipeline.start(host).then((pipeline) => {
        const source = this.nextSource++;
        const r = pipeline.relaySource();
        this.hub.post({ t: 'frame_source', source, port: r.port, webpRing: r.webpRing, webpRingSlots: r.webpRingSlots, webpSlotBytes: r.webpSlotBytes }, [r.port]);
        const entry = { profile: host.profileKey, hostPid: host.pid, source, framebuffer: pipeline.framebuffer, popups: pipeline.popupWatch, encoder: pipeline.encodeMode };
        if (pipeline.framebuffer === 'mapped') log.info(entry, 'frame pipeline started');
        else log.warn(entry, 'frame pipeline started without the mapped framebuffer: capture costs more CPU');
        if (pipeline.encodeFallback) log.warn(entry, `${pipeline.encodeFallback}: encoding costs more CPU`);
        if (pipeline.popupWatch !== 'watched') log.warn(entry, 'a select\'s list on this host takes keys only: its popup window cannot be clicked');
        pipeline.onProblem((p) => { if (p.fatal) log.error(entry, p.sentence); else log.warn(entry, p.sentence); });
        this.running.set(host, pipeline);
        return { pipeline, source };
      });
      f.catch(() => this.frames.delete(host));
      this.frames.set(host, f);
    }
    return f;
  }

  /** The host's pipeline if one was started (it may still be starting). */
  started(host: BrowserHost): Promise<HostFrames> | undefined {
    return this.frames.get(host);
  }

  /** The id the tab's frames carry, made on first ask. */
  frameId(tab: Tab): number {
    let id = this.frameIds.get(tab);
    if (id === undefined) { id = this.nextFrameId++; this.frameIds.set(tab, id); }
    return id;
  }

  /** The id a tab's frames carry, once it was ever shown; /metrics labels its per-tab figures with it. */
  frameOf(tab: Tab): number | undefined { return this.frameIds.get(tab); }

  /** The running hosts' encoders, as /metrics shows them. */
  encoders(): Array<[profile: string, pipeline: FramePipeline]> {
    return [...this.running].map(([host, p]) => [host.profileKey, p]);
  }

  /** The profile's host ended: the pipelines of its dead hosts stop. */
  hostEnded(profileKey: string): void {
    for (const [host, frames] of this.frames) {
      if (host.profileKey !== profileKey || host.alive) continue;
      this.frames.delete(host);
      void frames.then((f) => this.stopFrames(f)).catch(() => undefined);
    }
  }

  private async stopFrames(f: HostFrames): Promise<void> {
    for (const [host, p] of this.running) if (p === f.pipeline) this.running.delete(host);
    this.hub.post({ t: 'frame_source_end', source: f.source });
    await f.pipeline.stop();
  }

  async stop(): Promise<void> {
    const all = [...this.frames.values()];
    this.frames.clear();
    await Promise.allSettled(all.map((f) => f.then((x) => this.stopFrames(x))));
  }
}
