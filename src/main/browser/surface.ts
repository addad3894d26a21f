/** The browser surface: profiles, their hosts and tabs, the agent's browser tools, and viewers. */
import { usageByGroup } from './host-usage.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SessionContext } from '../mcp/context.js';
import type { ViewerHub } from '../viewers.js';
import type { Surface } from '../surface.js';
import type { ServerContext } from '../surface.js';
import { profileDir, profilesRoot } from '../state.js';
import { ProfileBrowser, type ProfileEvents } from './profile.js';
import type { Tab } from './tabs.js';
import type { ViewRecording } from '../../shared/protocol.js';
import { registerBrowserTools } from './tools.js';
import { recordingTab } from './tools/video-running.js';
import type { AgentCap } from './tools/caps.js';
import { log } from '../logging.js';
import { BrowserViewing } from './viewing.js';
import { encodeMetrics, frameRingMetrics, tabEncodeMetrics, type TabEncodeRow } from './encode-metrics.js';
import { BrowserHandOffs } from './handoff.js';
import { FileChoosers } from './file-chooser.js';
import { Downloads } from './downloads.js';
import { orgProfileKeys, profileKeyFor } from '../config.js';
import { parseSeat } from '../seat.js';
import { tellSeat } from './agent-events.js';
import { Thumbnails } from './thumbnails.js';
import { dropNarrowLayout } from './tools/lay-out.js';

/** How often the idle sweep looks at the profiles at most, ms; a short idle_minutes looks more often. */
const IDLE_SWEEP_PERIOD_MAX_MS = 15_000;

export class BrowserSurface implements Surface {
  readonly name = 'browser';
  private profiles = new Map<string, ProfileBrowser>();
  private sweep: NodeJS.Timeout;
  private changeListeners: Array<(p: ProfileBrowser) => void> = [];
  private endListeners: Array<(p: ProfileBrowser, sentence: string) => void> = [];
  private sessions = new Map<string, number>();
  private viewing?: BrowserViewing;
  private handOffs?: BrowserHandOffs;
  private choosers?: FileChoosers;
  private downloads?: Downloads;
  private thumbs?: Thumbnails;
  private stopping = false;

  constructor(private readonly ctx: ServerContext) {
    const period = Math.max(250, Math.min(IDLE_SWEEP_PERIOD_MAX_MS, (ctx.config.browser.idleMinutes * 60_000) / 4));
    this.sweep = setInterval(() => void this.idleSweep(), period);
    this.sweep.unref();
    // A lease another node took while this one was out of touch: the host here ends, so one node decides for each tab.
    ctx.cluster?.leases.onLost((key, sentence) => void this.profiles.get(key)?.end(sentence, {}).catch(() => undefined));
  }

  profile(key: string): ProfileBrowser {
    let p = this.profiles.get(key);
    if (!p) {
      const events: ProfileEvents = {
        changed: (pp) => { for (const l of this.changeListeners) l(pp); },
        hostEnded: (pp, s) => { for (const l of this.endListeners) l(pp, s); },
        popupOpened: (pp, opener, popup) => this.viewing?.follow(pp, opener, popup),
        popupClosed: (pp, popup, opener) => this.viewing?.follow(pp, popup, opener),
        fileChooser: (pp, tab, chooser) => void this.choosers?.opened(pp, tab, chooser).catch((e: Error) => log.warn({ err: e }, 'file chooser not offered')),
        chooserAnswered: (_pp, tab) => this.choosers?.answeredByAgent(tab),
        download: (pp, tab, d) => void this.downloads?.started(pp, tab, d).catch((e: Error) => log.warn({ err: e }, 'download not kept')),
      };
      const b = this.ctx.config.browser;
      const made: ProfileBrowser = new ProfileBrowser(key, profileDir(this.ctx.stateDir, key), events, {
        allowFileUrls: this.ctx.config.agent.allowFileUrls,
        snapshot: this.ctx.config.agent.snapshot,
        caps: { agent: b.hiddenAgentTabs, person: b.hiddenPersonTabs },
        spareWindow: b.spareWindow,
        // A tab an agent records is in use as much as one a person watches: the budget leaves it loaded.
        shown: (tab) => this.watched(tab) || recordingTab(made, tab),
        ...(this.ctx.cluster ? { claim: (k: string) => this.ctx.cluster!.leases.claim(k) } : {}),
      });
      this.profiles.set(key, made);
      p = made;
    }
    return p;
  }

  /** The opt-in tool groups forge.toml's [agent] caps names. */
  agentCaps(): ReadonlySet<AgentCap> { return new Set(this.ctx.config.agent.caps); }
  allowRunCode(): boolean { return this.ctx.config.agent.allowRunCode; }

  /** Whether a person's viewer watches the tab (the agent's browser_resize is refused then). */
  watched(tab: Tab): boolean { return (this.viewing?.watchersOf(tab).length ?? 0) > 0; }
  recording(tab: Tab, take: ViewRecording | null): Promise<boolean> { return this.viewing?.recording(tab, take) ?? Promise.resolve(false); }

  allProfiles(): ProfileBrowser[] { return [...this.profiles.values()]; }
  onChanged(cb: (p: ProfileBrowser) => void): void { this.changeListeners.push(cb); }
  onHostEnded(cb: (p: ProfileBrowser, sentence: string) => void): void { this.endListeners.push(cb); }

  registerTools(server: McpServer, ctx: SessionContext): void {
    registerBrowserTools(server, ctx, this);
    this.handOffs?.registerTool(server, ctx);
    const n = (this.sessions.get(ctx.seat.key) ?? 0) + 1;
    this.sessions.set(ctx.seat.key, n);
    const p = this.profile(ctx.profileKey);
    p.seatActive(ctx.seat.key, true);
    if (!this.stopping) p.warm(`seat ${ctx.seat.key}'s session opened`);
  }

  sessionClosed(ctx: SessionContext): void {
    const n = (this.sessions.get(ctx.seat.key) ?? 1) - 1;
    if (n > 0) { this.sessions.set(ctx.seat.key, n); return; }
    this.sessions.delete(ctx.seat.key);
    const p = this.profile(ctx.profileKey);
    p.seatActive(ctx.seat.key, false);
    void p.seatEnded(ctx.seat.key);
  }

  attachViewers(hub: ViewerHub): void {
    const handOffs = new BrowserHandOffs(hub, { profile: (key) => this.profile(key), baseUrl: this.ctx.baseUrl, linkKey: this.ctx.linkKey, ...(this.ctx.cluster ? { node: this.ctx.cluster.cfg.node } : {}) });
    this.handOffs = handOffs;
    handOffs.attachViewers();
    this.viewing = new BrowserViewing(hub, {
      profile: (key) => this.profile(key),
      profileKeyFor: (seat) => profileKeyFor(this.ctx.config, seat ? parseSeat(seat).project : '*'),
      orgProfileKeys: () => orgProfileKeys(this.ctx.config),
      handOffPage: (id) => handOffs.pageOf(id),
      handOffOpened: (id) => handOffs.opened(id),
      handOffNames: (pageId) => handOffs.names(pageId),
      idleMinutes: this.ctx.config.browser.idleMinutes,
      // A hand-off's Open and the strip's show are real needs of the browser: its host starts.
      wanted: (p, why) => { if (!this.stopping) p.warm(why); },
      // A person showing a tab, and leaving it, is the tab's use; showing an unloaded tab rebuilds it.
      tabShown: async (p, tab) => {
        p.markUse(tab, 'person');
        // A person's surface sets the layout now: an agent's narrow one is not left under it.
        await dropNarrowLayout(p, tab);
        // The owner learns on its next call that the page it left was reloaded for the person.
        if (!tab.unloaded) return;
        const url = tab.unloaded.url || 'about:blank';
        await p.revive(tab);
        tellSeat(p, tab.owner, `a person showed tab ${tab.number} (${tab.pageId}), which had been unloaded to save memory, so it was reloaded at ${url}: its in-page state and form input are lost, cookies stay`);
      },
      tabHidden: (p, tab) => p.markUse(tab, 'person'),
    });
    this.viewing.attach();
    const viewing = this.viewing;
    this.choosers = new FileChoosers(hub, { controllerOf: (tab) => viewing.controllerOf(tab) });
    this.choosers.attach();
    this.downloads = new Downloads(hub, { controllerOf: (tab) => viewing.controllerOf(tab), viewersOf: (p) => viewing.viewersOfProfile(p), linkKey: this.ctx.linkKey, profilesRoot: profilesRoot(this.ctx.stateDir), ...(this.ctx.cluster ? { node: this.ctx.cluster.cfg.node } : {}) });
    viewing.viewPushed.push((p, tab) => { this.choosers?.viewChanged(tab); this.downloads?.viewChanged(p, tab); });
    this.thumbs = new Thumbnails(hub, () => this.allProfiles());
    this.thumbs.attach();
    this.onChanged((p) => this.viewing?.profileChanged(p));
    this.onHostEnded((p, sentence) => this.viewing?.hostEnded(p, sentence));
  }

  private async idleSweep(): Promise<void> {
    const limitMs = this.ctx.config.browser.idleMinutes * 60_000;
    for (const p of this.profiles.values()) {
      if (!p.idleFor(limitMs)) continue;
      log.info({ profile: p.key }, 'idle close');
      const m = this.ctx.config.browser.idleMinutes;
      await p.end(`closed after ${m} idle minute${m === 1 ? '' : 's'}`, {}).catch(() => undefined);
    }
  }

  gauges(): string {
    const lines = ['# TYPE forge_browser_tabs gauge'];
    for (const p of this.profiles.values()) lines.push(`forge_browser_tabs{profile="${p.key}"} ${p.tabs.size}`);
    lines.push('# TYPE forge_browser_tabs_unloaded gauge');
    for (const p of this.profiles.values()) lines.push(`forge_browser_tabs_unloaded{profile="${p.key}"} ${p.tabs.all().filter((t) => t.unloaded).length}`);
    lines.push('# HELP forge_browser_spare_windows blank windows with their renderer kept ready for the next open or rebuild of a tab', '# TYPE forge_browser_spare_windows gauge');
    for (const p of this.profiles.values()) if (p.driver) lines.push(`forge_browser_spare_windows{profile="${p.key}"} ${p.driver.spareReady ? 1 : 0}`);
    lines.push(encodeMetrics(this.viewing?.encoders() ?? []));
    lines.push(frameRingMetrics(this.viewing?.encoders() ?? []));
    lines.push(tabEncodeMetrics(this.tabEncodeRows()));
    lines.push('# HELP forge_input_unacked_total gestures the page never acknowledged (a navigation replaced it under them); the queue moved on', '# TYPE forge_input_unacked_total counter', `forge_input_unacked_total ${this.viewing?.unackedInputs ?? 0}`);
    // What each running host costs the machine: Chromium's process group and its display's.
    const hosts = [...this.profiles.values()].filter((p) => p.host?.alive && p.host.pid);
    const usage = usageByGroup(hosts.flatMap((p) => [p.host!.pid, p.host!.xvfbPid].filter(Boolean)));
    const sum = (p: ProfileBrowser, k: 'rssBytes' | 'cpuSeconds' | 'processes'): number => [p.host!.pid, p.host!.xvfbPid].reduce((n, g) => n + (usage.get(g)?.[k] ?? 0), 0);
    lines.push('# HELP forge_host_resident_bytes resident memory of every process of the host (Chromium and its display)', '# TYPE forge_host_resident_bytes gauge');
    for (const p of hosts) lines.push(`forge_host_resident_bytes{profile="${p.key}"} ${sum(p, 'rssBytes')}`);
    lines.push('# HELP forge_host_cpu_seconds_total CPU time of the host\'s live processes', '# TYPE forge_host_cpu_seconds_total counter');
    for (const p of hosts) lines.push(`forge_host_cpu_seconds_total{profile="${p.key}"} ${sum(p, 'cpuSeconds').toFixed(2)}`);
    lines.push('# TYPE forge_host_processes gauge');
    for (const p of hosts) lines.push(`forge_host_processes{profile="${p.key}"} ${sum(p, 'processes')}`);
    return lines.join('\n');
  }

  /** Each watched tab's encoder counters, named by its profile, number, page id and seat. */
  private tabEncodeRows(): TabEncodeRow[] {
    const rows: TabEncodeRow[] = [];
    for (const [profile, pipeline] of this.viewing?.encoders() ?? []) {
      const p = this.profiles.get(profile);
      const byFrame = new Map((p?.tabs.all() ?? []).map((t) => [this.viewing!.frameOf(t), t] as const));
      for (const s of pipeline.encodeStats.tabs ?? []) {
        const t = byFrame.get(s.frame);
        if (t) rows.push({ profile, frame: s.frame, number: t.number, pageId: t.pageId, seat: t.owner ?? '', frames: s.frames, bytes: s.bytes, encodeMs: s.encodeMs });
      }
    }
    return rows;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweep);
    this.handOffs?.stop();
    this.downloads?.stop();
    this.thumbs?.stop();
    await this.viewing?.stop();
    await Promise.allSettled([...this.profiles.values()].map((p) => p.end('the server is stopping')));
  }
}
