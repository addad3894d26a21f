/**
 * A page's file chooser, answered by a person. The host has no window of its own, so a chooser the
 * driver captured on a tab goes to the viewer controlling that tab as a request; its client opens
 * the platform's picker and sends the picked files back, base64, in one message. The server
 * writes them beside the profile and hands them to the chooser. A dismissed picker cancels it.
 * Without a controller the chooser waits (for a person who takes control, or for the agent's
 * browser_file_upload); a chooser on a tab nobody controls is never shown anywhere.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChooser } from 'playwright-core';
import type { ClientMessageOf, ServerMessage } from '../../shared/protocol.js';
import { ForgeError } from '../../shared/errors.js';
import {
  FILE_CHOOSER_MAX_BASE64_CHARS, FILE_CHOOSER_MAX_BYTES, FILE_CHOOSER_MAX_FILES, FILE_CHOOSER_UPLOADS_KEPT,
  FILE_NAME_MAX_CHARS, PAGE_ACTION_TIMEOUT_MS,
} from '../../shared/limits.js';
import type { ViewerHub, ViewerInfo } from '../viewers.js';
import { log } from '../logging.js';
import type { ProfileBrowser } from './profile.js';
import type { Tab } from './tabs.js';
import { tellSeat } from './agent-events.js';

export interface ChooserDoors {
  /** The viewer holding the controller role on the tab, or null. */
  controllerOf(tab: Tab): number | null;
}

interface Pending {
  id: string;
  profile: ProfileBrowser;
  tab: Tab;
  chooser: FileChooser;
  multiple: boolean;
  accept: string;
  /** The controller the request went to; a new controller is asked again. */
  offeredTo?: number;
}

type Answer = ClientMessageOf<'file_chooser_answer'>;

const MIB = 1024 * 1024;

export class FileChoosers {
  private pending = new Map<string, Pending>();
  private byTab = new WeakMap<Tab, Pending>();
  /** Each profile's answered choosers' upload folders, oldest first. */
  private uploads = new Map<string, string[]>();

  constructor(private readonly hub: ViewerHub, private readonly doors: ChooserDoors) {}

  attach(): void {
    this.hub.on('file_chooser_answer', (v, m) => this.answer(v, m));
  }

  /** The driver captured a chooser on `tab` (the profile already holds it as tab.fileChooser). */
  async opened(p: ProfileBrowser, tab: Tab, chooser: FileChooser): Promise<void> {
    const before = this.byTab.get(tab);
    if (before) this.end(before, 'gone', 'The page opened another file chooser in place of this one.');
    const accept = await chooser.element().getAttribute('accept').catch(() => null);
    if (tab.fileChooser !== chooser) return; // answered meanwhile
    const pd: Pending = { id: `fc-${randomBytes(4).toString('hex')}`, profile: p, tab, chooser, multiple: chooser.isMultiple(), accept: accept ?? '' };
    this.pending.set(pd.id, pd);
    this.byTab.set(tab, pd);
    log.info({ profile: p.key, tab: tab.number, chooser: pd.id, multiple: pd.multiple }, 'file chooser opened');
    this.offer(pd);
  }

  /** Who controls `tab` may have changed: a waiting chooser goes to its controller now. */
  viewChanged(tab: Tab): void {
    const pd = this.byTab.get(tab);
    if (pd) this.offer(pd);
  }

  /** The agent answered the tab's chooser with browser_file_upload: the person's picker is closed. */
  answeredByAgent(tab: Tab): void {
    const pd = this.byTab.get(tab);
    if (pd) this.end(pd, 'gone', 'The agent answered the page\'s file chooser.');
  }

  private live(pd: Pending): boolean {
    return this.pending.has(pd.id) && pd.tab.fileChooser === pd.chooser;
  }

  private offer(pd: Pending): void {
    if (!this.live(pd)) { this.forget(pd); return; }
    const c = this.doors.controllerOf(pd.tab);
    if (c === pd.offeredTo) return;
    pd.offeredTo = c ?? undefined;
    if (c === null) return;
    this.hub.send(c, { t: 'file_chooser', chooser: pd.id, tab: pd.tab.number, pageId: pd.tab.pageId, multiple: pd.multiple, accept: pd.accept });
  }

  private forget(pd: Pending): void {
    this.pending.delete(pd.id);
    if (this.byTab.get(pd.tab) === pd) this.byTab.delete(pd.tab);
  }

  /** The chooser is settled: whoever was asked hears how, and it is asked no more. */
  private end(pd: Pending, outcome: 'picked' | 'dismissed' | 'gone', message: string): void {
    this.forget(pd);
    if (pd.offeredTo !== undefined) {
      const msg: ServerMessage = { t: 'file_chooser_end', chooser: pd.id, tab: pd.tab.number, pageId: pd.tab.pageId, outcome, message };
      this.hub.send(pd.offeredTo, msg);
    }
  }

  private async answer(v: ViewerInfo, m: Answer): Promise<void> {
    const pd = this.pending.get(m.chooser);
    if (!pd || !this.live(pd)) {
      if (pd) this.forget(pd);
      throw new ForgeError('bad_request', `the file chooser ${m.chooser} is no longer open: it was answered, or its page moved on`);
    }
    const n = pd.tab.number;
    if (this.doors.controllerOf(pd.tab) !== v.id) {
      throw new ForgeError('not_controller', `only the viewer controlling tab ${n} answers its file chooser; take control of tab ${n} first`);
    }
    // The door lets an answer through with files or with dismiss.
    if (m.dismiss === true || !m.files) {
      const over = m.picked ? pastLimits(m.picked.files, m.picked.bytes) : undefined;
      if (over) await this.overLimit(pd, over); else await this.settle(pd, [], `the person dismissed the picker for the file chooser on tab ${n}`);
      return;
    }
    const files = m.files;
    if (files.length === 0) { await this.settle(pd, [], `the person picked no file for the file chooser on tab ${n}`); return; }
    const tooMany = pastLimits(files.length, 0);
    if (tooMany) { await this.overLimit(pd, tooMany); return; }
    const chars = files.reduce((sum, f) => sum + f.data.length, 0);
    if (chars > FILE_CHOOSER_MAX_BASE64_CHARS) {
      await this.overLimit(pd, pastLimits(0, Math.floor((chars * 3) / 4))!);
      return;
    }
    if (!pd.multiple && files.length > 1) {
      throw new ForgeError('bad_request', `the file chooser on tab ${n} takes one file; ${files.length} were picked`);
    }
    const bytes = files.map((f) => Buffer.from(f.data, 'base64'));
    const tooBig = pastLimits(0, bytes.reduce((sum, b) => sum + b.byteLength, 0));
    if (tooBig) { await this.overLimit(pd, tooBig); return; }
    const root = `${pd.profile.dir}-uploads`;
    // Uploads an earlier run wrote were handed to pages long gone.
    if (!this.uploads.has(pd.profile.key)) { this.uploads.set(pd.profile.key, []); await rm(root, { recursive: true, force: true }); }
    const dir = join(root, pd.id);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const names = uniqueNames(files.map((f) => f.name));
    const paths = names.map((name) => join(dir, name));
    await Promise.all(paths.map((path, i) => writeFile(path, bytes[i]!, { mode: 0o600 })));
    this.keepUploads(pd.profile.key, dir);
    const list = names.join(', ');
    await this.settle(pd, paths, `the person picked ${names.length === 1 ? '1 file' : `${names.length} files`} (${list}) for the file chooser on tab ${n}`, `Sent ${list} to the page.`);
  }

  /** Past a limit the whole answer is a dismiss: the person reads why, the agent hears it. */
  private async overLimit(pd: Pending, why: string): Promise<void> {
    await this.settle(pd, [], `the file chooser on tab ${pd.tab.number} was dismissed: ${why}`, `The page's file chooser was dismissed: ${why}. Pick fewer or smaller files and open the page's chooser again.`);
  }

  /** Hands `paths` to the chooser (none cancels it), tells the agent `event`, and closes the person's picker. */
  private async settle(pd: Pending, paths: string[], event: string, sentence?: string): Promise<void> {
    const n = pd.tab.number;
    pd.tab.fileChooser = undefined;
    try {
      await pd.chooser.setFiles(paths, { timeout: PAGE_ACTION_TIMEOUT_MS });
    } catch (e) {
      log.warn({ err: e, chooser: pd.id }, 'file chooser answer failed');
      this.end(pd, 'gone', `The page's file chooser on tab ${n} went away before the files reached it.`);
      tellSeat(pd.profile, pd.tab.owner, `the file chooser on tab ${n} went away before the person's answer reached it`);
      return;
    }
    const picked = paths.length > 0;
    tellSeat(pd.profile, pd.tab.owner, event);
    this.end(pd, picked ? 'picked' : 'dismissed', sentence ?? 'The page\'s file chooser was cancelled.');
  }

  /** Keeps the newest answers' files (a page may read a picked file later); older folders are removed. */
  private keepUploads(profile: string, dir: string): void {
    const dirs = this.uploads.get(profile) ?? [];
    dirs.push(dir);
    while (dirs.length > FILE_CHOOSER_UPLOADS_KEPT) void rm(dirs.shift()!, { recursive: true, force: true }).catch(() => undefined);
    this.uploads.set(profile, dirs);
  }
}

/** Why a pick of `files` files and `bytes` bytes is past one answer's limits, or undefined when it is not. */
function pastLimits(files: number, bytes: number): string | undefined {
  if (Number.isFinite(files) && files > FILE_CHOOSER_MAX_FILES) return `${files} files is more than the ${FILE_CHOOSER_MAX_FILES} one answer may carry`;
  if (Number.isFinite(bytes) && bytes > FILE_CHOOSER_MAX_BYTES) return `the files come to ${(bytes / MIB).toFixed(1)} MiB, more than the ${FILE_CHOOSER_MAX_BYTES / MIB} MiB one answer may carry`;
  return undefined;
}

/** A picked name made safe for the disk (no folders, no control characters), unique within one answer. */
function uniqueNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((raw) => {
    // eslint-disable-next-line no-control-regex
    let name = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, FILE_NAME_MAX_CHARS);
    if (name === '' || name === '.' || name === '..') name = 'file';
    let candidate = name;
    for (let k = 2; seen.has(candidate); k++) candidate = `${k}-${name}`;
    seen.add(candidate);
    return candidate;
  });
}
