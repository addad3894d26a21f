/**
 * A host's own temp dir, given to Chromium as TMPDIR. Chromium makes its profile lock's socket
 * directory (`org.chromium.Chromium.XXXXXX`) and its scratch files there; in the system temp dir
 * every host that ended without its own orderly exit (SIGKILL, a lost display) left one behind.
 *
 * The dir is `<profile>/tmp`, emptied when a host starts (one host per profile at a time, so
 * whatever is there is an earlier host's of this profile) and removed when it ends. A socket path
 * longer than Linux allows would stop Chromium's lock from working, so a profile whose path is
 * too long gets a private dir in the system temp dir instead, named after the server's pid and
 * swept by a later host's start once that pid is gone, as the framebuffer dirs are.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Longest path a Unix socket may bind to on Linux, bytes (sun_path is 108 with its NUL). */
const UNIX_SOCKET_PATH_MAX = 107;
/** What Chromium appends to TMPDIR for its lock socket: `/org.chromium.Chromium.XXXXXX/SingletonSocket`. */
const SINGLETON_SOCKET_SUFFIX = '/org.chromium.Chromium.XXXXXX/SingletonSocket';
/** The system's temp dir: the server points its own TMPDIR at its state dir and keeps the system's in FORGE_SYSTEM_TMPDIR. */
const SYSTEM_TMP = process.env.FORGE_SYSTEM_TMPDIR ?? tmpdir();

/** The fallback dirs' name in the system temp dir: `forge-host-<server pid>-XXXXXX`. */
const FALLBACK_PREFIX = 'forge-host-';

/** Makes an empty temp dir for a host of the profile at `profileDir` and answers its path. */
export function makeHostTmp(profileDir: string): string {
  const own = join(profileDir, 'tmp');
  if (Buffer.byteLength(own + SINGLETON_SOCKET_SUFFIX) <= UNIX_SOCKET_PATH_MAX) {
    rmSync(own, { recursive: true, force: true });
    mkdirSync(own, { recursive: true, mode: 0o700 });
    return own;
  }
  sweepDeadHostTmps();
  return mkdtempSync(join(SYSTEM_TMP, `${FALLBACK_PREFIX}${process.pid}-`));
}

/** Removes a host's temp dir once its processes are gone. */
export function removeHostTmp(dir: string): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/**
 * Removes fallback temp dirs of servers that died without stopping (kill -9). Only a dir of this
 * user whose server is known gone is removed: a live server's, or another user's, stays.
 */
export function sweepDeadHostTmps(): void {
  let names: string[];
  const root = SYSTEM_TMP;
  try { names = readdirSync(root); } catch { return; }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = /^forge-host-(\d+)-/.exec(name);
    if (!m) continue;
    const dir = join(root, name);
    try {
      if (uid !== undefined && lstatSync(dir).uid !== uid) continue;
      try { process.kill(Number(m[1]), 0); continue; } catch (e) { if ((e as NodeJS.ErrnoException).code !== 'ESRCH') continue; }
      rmSync(dir, { recursive: true, force: true });
    } catch { /* taken meanwhile, or not ours to remove */ }
  }
}
