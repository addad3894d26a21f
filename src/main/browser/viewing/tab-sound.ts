/**
 * The tabs' sound for viewers: each host's sound capture (made when one of its tabs first has a
 * controller, ended with the host), who hears which tab, and which tabs play sound, asked of the
 * hosts people look at so the tab list can mark them.
 */
import type { ViewerHub } from '../../viewers.js';
import { log } from '../../logging.js';
import type { BrowserHost } from '../host/host.js';
import type { ProfileBrowser } from '../profile.js';
import { HostSound, type Listener } from '../sound.js';

/** How often the tab list's sound marks are asked of a looked-at host, ms: one small CDP call each; Chromium itself marks a tab audible for ~2 s after its sound. */
export const AUDIBLE_POLL_MS = 1_000;

export interface SoundWatch {
  /** The profiles whose tab list some viewer follows now. */
  lookedAt(): Iterable<string>;
  profile(key: string): ProfileBrowser;
  /** A profile's audible tabs changed: its tab list is pushed again. */
  changed(p: ProfileBrowser): void;
}

export class TabSound {
  private sounds = new Map<BrowserHost, HostSound>();
  /** The target ids of each profile's tabs that play sound, as last asked. */
  private audible = new Map<string, Set<string>>();
  private poll?: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly hub: ViewerHub, private readonly watch: SoundWatch) {}

  start(): void {
    this.poll = setInterval(() => {
      if (this.polling) return;
      this.polling = true;
      void this.pollAudible().catch(() => undefined).finally(() => { this.polling = false; });
    }, AUDIBLE_POLL_MS);
    this.poll.unref();
  }

  /** Whether the tab (by its target id) played sound when the profile was last asked. */
  isAudible(profileKey: string, targetId: string): boolean {
    return this.audible.get(profileKey)?.has(targetId) ?? false;
  }

  /**
   * The host's sound follows the role: each controller hears the tab it controls, to that
   * controller only; a tab nobody controls is not captured.
   */
  follow(p: ProfileBrowser, heard: Listener[]): void {
    const host = p.host;
    if (!host?.alive || !host.audio || !p.driver) return;
    if (heard.length === 0 && !this.sounds.has(host)) return;
    this.soundOf(p)?.listen(heard).catch((e: Error) => log.warn({ profile: p.key, err: e.message }, 'the tab\'s sound could not be switched'));
  }

  /** The host's sound capture (made on first use, ended with the host), while the host has an audio sink. */
  private soundOf(p: ProfileBrowser): HostSound | undefined {
    const host = p.host;
    if (!host?.alive || !host.audio || !p.driver) return undefined;
    let sound = this.sounds.get(host);
    if (!sound) {
      const made = new HostSound(host.wsEndpoint, p.driver.context, (viewer, data) => this.hub.post({ t: 'send_audio', viewer, data }, [data.buffer as ArrayBuffer]));
      this.sounds.set(host, made);
      host.onExit(() => { made.close(); this.sounds.delete(host); this.audible.delete(p.key); });
      sound = made;
    }
    return sound;
  }

  /**
   * Which tabs play sound (muted or not), asked of each looked-at profile's host: a change
   * pushes the tab list, whose rows say it. Only profiles someone looks at are asked.
   */
  private async pollAudible(): Promise<void> {
    for (const key of new Set(this.watch.lookedAt())) {
      const p = this.watch.profile(key);
      const sound = this.soundOf(p);
      if (!sound) continue;
      const now = new Set(await sound.audible().catch(() => [] as string[]));
      const was = this.audible.get(key) ?? new Set<string>();
      if (now.size === was.size && [...now].every((id) => was.has(id))) continue;
      this.audible.set(key, now);
      this.watch.changed(p);
    }
  }

  stop(): void {
    clearInterval(this.poll);
    for (const s of this.sounds.values()) s.close();
    this.sounds.clear();
  }
}
