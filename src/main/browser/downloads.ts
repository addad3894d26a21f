/**
 * A page's downloads, saved beside the profile and offered to the person controlling the tab:
 * the client gets a signed link the relay serves the bytes at. A file past DOWNLOAD_MAX_BYTES is
 * refused in words. The profile keeps at most DOWNLOAD_BACKLOG_MAX finished downloads; a newer one
 * drops the oldest (its file removed), and the loss is announced to the profile's viewers with
 * the count - naming the profile, not a tab.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Download } from 'playwright-core';
import { DOWNLOAD_BACKLOG_MAX, DOWNLOAD_LINK_MINUTES, DOWNLOAD_LOSS_GATHER_MS, DOWNLOAD_MAX_BYTES, FILE_NAME_MAX_CHARS } from '../../shared/limits.js';
import { sizeInWords } from '../../shared/sizes.js';
import type { ViewerHub } from '../viewers.js';
import { signDownload } from '../../workers/relay/links.js';
import { log } from '../logging.js';
import type { ProfileBrowser } from './profile.js';
import type { Tab } from './tabs.js';
import { downloadForSeat, tellSeat } from './agent-events.js';

export interface DownloadDoors {
  controllerOf(tab: Tab): number | null;
  /** Every viewer of the profile: subscribed to its tab list or watching one of its tabs. */
  viewersOf(p: ProfileBrowser): number[];
  /** This process's private key, signing its download links. */
  linkKey: KeyObject;
  /** The profiles folder: a link names its download relative to it (see workers/relay/download-path.ts). */
  profilesRoot: string;
  /** This node's name on a cluster: a link names the node that kept its download. */
  node?: string;
}

interface Kept { id: string; profile: ProfileBrowser; tab: Tab; name: string; size: number; path: string; offeredTo?: number; fetched?: boolean }

const MIB = 1024 * 1024;

export class Downloads {
  private backlogs = new Map<string, Kept[]>();
  /** Download folders cleared of an earlier run's files. */
  private swept = new Set<string>();
  /** Drops not yet announced, by profile: a burst is one notice. */
  private losses = new Map<string, { profile: ProfileBrowser; kept: Kept[]; timer: NodeJS.Timeout }>();

  constructor(private readonly hub: ViewerHub, private readonly doors: DownloadDoors) {
    hub.onDownloadFetched((path) => this.fetched(path));
  }

  /** The person's client fetched a kept download: dropping it from the backlog later loses nothing. */
  private fetched(path: string): void {
    for (const list of this.backlogs.values()) for (const k of list) if (k.path === path) k.fetched = true;
  }

  /** A download started on `tab`: once it finishes it is saved, offered, or refused in words. */
  async started(p: ProfileBrowser, tab: Tab, download: Download): Promise<void> {
    const name = safeName(download.suggestedFilename());
    const n = tab.number;
    const failure = await download.failure().catch((e: Error) => e.message);
    if (failure) {
      this.refuse(p, tab, name, `The download ${name} on tab ${n} failed (${failure}).`, `a download on tab ${n} failed: ${name} (${failure})`);
      return;
    }
    const tmp = await download.path().catch(() => null);
    const size = tmp ? (await stat(tmp).catch(() => null))?.size ?? null : null;
    if (tmp === null || size === null) {
      this.refuse(p, tab, name, `The download ${name} on tab ${n} could not be kept: the browser did not leave its file.`, `a download on tab ${n} could not be kept: ${name}`);
      return;
    }
    if (size > DOWNLOAD_MAX_BYTES) {
      await download.delete().catch(() => undefined);
      const why = `${name} is ${(size / MIB).toFixed(1)} MiB, past the ${DOWNLOAD_MAX_BYTES / MIB} MiB a client is handed`;
      this.refuse(p, tab, name, `The download ${why}; it was not kept.`, `a download on tab ${n} was refused: ${why}`);
      return;
    }
    const id = `dl-${randomBytes(4).toString('hex')}`;
    const dir = `${p.dir}-downloads`;
    // A backlog lives as long as the server: files an earlier run kept are nobody's now.
    if (!this.swept.has(dir)) { this.swept.add(dir); await rm(dir, { recursive: true, force: true }); }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${id}-${name}`);
    await download.saveAs(path);
    await download.delete().catch(() => undefined);
    const kept: Kept = { id, profile: p, tab, name, size, path };
    const list = this.backlogs.get(p.key) ?? [];
    list.push(kept);
    this.backlogs.set(p.key, list);
    while (list.length > DOWNLOAD_BACKLOG_MAX) this.drop(list.shift()!);
    log.info({ profile: p.key, tab: n, download: id, bytes: size }, 'download kept');
    this.offer(kept);
    const to = kept.offeredTo !== undefined ? 'offered to the person' : `kept for the person who takes control of tab ${n}`;
    tellSeat(p, tab.owner, `a download finished on tab ${n}: ${name} (${sizeInWords(size)}), ${to}`);
    downloadForSeat(p, tab.owner, { name, path, size });
  }

  /**
   * Who controls `tab` may have changed: its kept downloads go to its controller now, and so do
   * those whose own tab is gone (closed, or ended with its host) - they are the profile's.
   */
  viewChanged(p: ProfileBrowser, tab: Tab): void {
    for (const k of this.backlogs.get(p.key) ?? []) {
      if (k.tab === tab || p.tabs.get(k.tab.pageId) !== k.tab) this.offer(k, tab);
    }
  }

  private offer(k: Kept, via: Tab = k.tab): void {
    const c = this.doors.controllerOf(via);
    if (c === null || c === k.offeredTo) return;
    k.offeredTo = c;
    const file = relative(this.doors.profilesRoot, k.path).split(sep).join('/');
    const url = `/download?k=${signDownload(this.doors.linkKey, { file, name: k.name, ...(this.doors.node ? { node: this.doors.node } : {}) }, DOWNLOAD_LINK_MINUTES)}`;
    this.hub.send(c, { t: 'download', download: k.id, tab: k.tab.number, pageId: k.tab.pageId, name: k.name, size: k.size, url });
  }

  private refuse(p: ProfileBrowser, tab: Tab, name: string, sentence: string, event: string): void {
    log.info({ profile: p.key, tab: tab.number, name }, 'download refused');
    const c = this.doors.controllerOf(tab);
    if (c !== null) this.hub.send(c, { t: 'download_refused', tab: tab.number, pageId: tab.pageId, name, message: sentence });
    tellSeat(p, tab.owner, event);
  }

  /** The backlog is full: the oldest goes, its file with it, and - unless the person already fetched it - the loss is announced. */
  private drop(k: Kept): void {
    void rm(k.path, { force: true }).catch(() => undefined);
    if (k.fetched) { log.info({ profile: k.profile.key, download: k.id }, 'fetched download left the backlog'); return; }
    const key = k.profile.key;
    const loss = this.losses.get(key);
    if (loss) { loss.kept.push(k); return; }
    const timer = setTimeout(() => this.announce(key), DOWNLOAD_LOSS_GATHER_MS);
    timer.unref();
    this.losses.set(key, { profile: k.profile, kept: [k], timer });
  }

  private announce(key: string): void {
    const loss = this.losses.get(key);
    if (!loss) return;
    this.losses.delete(key);
    const count = loss.kept.length;
    const max = DOWNLOAD_BACKLOG_MAX;
    const title = count === 1 ? 'A download was lost' : `${count} downloads were lost`;
    const message = `${count === 1 ? 'One finished download was' : `${count} finished downloads were`} dropped: profile ${key}'s backlog holds at most ${max} at a time.`;
    log.warn({ profile: key, count }, 'downloads dropped from the backlog');
    this.hub.send(this.doors.viewersOf(loss.profile), { t: 'download_lost', profile: key, count, max, title, message, dropped: loss.kept.map((k) => k.id) });
    const bySeat = new Map<string, string[]>();
    for (const k of loss.kept) if (k.tab.owner) bySeat.set(k.tab.owner, [...(bySeat.get(k.tab.owner) ?? []), k.name]);
    for (const [seat, names] of bySeat) {
      tellSeat(loss.profile, seat, `${names.length === 1 ? '1 finished download was' : `${names.length} finished downloads were`} dropped from profile ${key}'s backlog, which holds at most ${max} (${names.join(', ')})`);
    }
  }

  stop(): void {
    for (const l of this.losses.values()) clearTimeout(l.timer);
    this.losses.clear();
  }
}

/** A suggested name made safe for the disk and a header: no folders, no control characters. */
function safeName(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const name = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, FILE_NAME_MAX_CHARS - 12);
  return name === '' || name === '.' || name === '..' ? 'download' : name;
}
