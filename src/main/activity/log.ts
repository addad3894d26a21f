/**
 * The activity log: every seat's recent acts, kept in memory for the home (newest last, at most
 * ACTIVITY_KEPT_MAX) and appended to `<state>/activity.jsonl` for an operator to read after the
 * fact. The file is rolled to `activity.1.jsonl` past ACTIVITY_FILE_MAX_BYTES, so it never grows
 * without bound. Writing is best effort: a full disk costs the file its lines, never a call.
 */
import { createWriteStream, renameSync, statSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { ActivityEvent } from '../../shared/activity.js';
import { log } from '../logging.js';

/** Acts kept in memory for the home, across seats: a person away for an hour of a busy seat still sees its last few hundred steps. */
export const ACTIVITY_KEPT_MAX = 500;
/** Bytes `activity.jsonl` grows to before it is rolled to `activity.1.jsonl` (the older roll is dropped): two files at most. */
export const ACTIVITY_FILE_MAX_BYTES = 16 * 1024 * 1024;

export const ACTIVITY_FILE = 'activity.jsonl';

export class ActivityLog {
  private readonly kept: ActivityEvent[] = [];
  private readonly listeners: Array<(ev: ActivityEvent) => void> = [];
  private out: WriteStream | null = null;
  private bytes = 0;
  private readonly path: string;

  constructor(stateDir: string) {
    this.path = join(stateDir, ACTIVITY_FILE);
    try { this.bytes = statSync(this.path).size; } catch { this.bytes = 0; }
  }

  /** Records one act: kept, appended to the file, and told to every listener. */
  record(ev: ActivityEvent): void {
    this.kept.push(ev);
    if (this.kept.length > ACTIVITY_KEPT_MAX) this.kept.splice(0, this.kept.length - ACTIVITY_KEPT_MAX);
    this.append(ev);
    for (const cb of this.listeners) {
      try { cb(ev); } catch (e) { log.error({ err: e }, 'activity listener failed'); }
    }
  }

  onRecord(cb: (ev: ActivityEvent) => void): void { this.listeners.push(cb); }

  /** The acts kept, oldest first, that `pick` lets through. */
  recent(pick: (ev: ActivityEvent) => boolean): ActivityEvent[] {
    return this.kept.filter(pick);
  }

  async close(): Promise<void> {
    const out = this.out;
    this.out = null;
    if (out) await new Promise<void>((r) => out.end(() => r()));
  }

  private append(ev: ActivityEvent): void {
    const line = `${JSON.stringify({ ...ev, at: new Date(ev.at).toISOString() })}\n`;
    if (this.bytes + line.length > ACTIVITY_FILE_MAX_BYTES) this.roll();
    if (!this.out) {
      this.out = createWriteStream(this.path, { flags: 'a', mode: 0o600 });
      this.out.on('error', (e) => { log.warn({ err: e, path: this.path }, 'the activity file could not be written'); this.out = null; });
    }
    this.out.write(line);
    this.bytes += Buffer.byteLength(line);
  }

  private roll(): void {
    const out = this.out;
    this.out = null;
    out?.end();
    try { renameSync(this.path, join(this.path, '..', 'activity.1.jsonl')); } catch { /* nothing to roll */ }
    this.bytes = 0;
  }
}
