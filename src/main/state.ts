/** The state directory: server.json (how clients find the running server) and the profiles. */
import { mkdirSync, readFileSync, writeFileSync, rmSync, chmodSync, renameSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `token`: this run's agents' key (MCP, /metrics), never a viewer's; `viewer_token`: the printed
 * viewer link's person token (control of the org's browser and terminals), never MCP's. `viewer_url`
 * and `mcp_url` are built on `[server] public_url` when it is set.
 */
export interface ServerInfo {
  pid: number;
  port: number;
  viewer_url: string;
  mcp_url: string;
  /** The main thread's own MCP endpoint on loopback, plain HTTP: for clients on this machine (the stdio bridge). */
  local_mcp_url?: string;
  token: string;
  viewer_token: string;
}

export function defaultStateDir(): string {
  return join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'forge');
}

export function resolveStateDir(dir: string | undefined): string {
  const d = resolve(dir ?? defaultStateDir());
  mkdirSync(d, { recursive: true, mode: 0o700 });
  return d;
}

export function writeServerInfo(stateDir: string, info: ServerInfo): void {
  const file = join(stateDir, 'server.json');
  // Written aside and renamed: a reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export function readServerInfo(stateDir: string): ServerInfo | undefined {
  try {
    return JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as ServerInfo;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live forge server (its command line runs forge's cli with `serve`), not this process. */
function forgeServer(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes('serve') && args.some((a) => /cli\.js$/.test(a));
  } catch {
    return false;
  }
}

/**
 * The server that serves `stateDir` now, if one does: server.json's pid, alive and a forge server.
 * A server killed with -9 leaves its server.json behind, and its pid may since be another
 * program's: that is no server.
 */
export function livingServer(stateDir: string): ServerInfo | undefined {
  const info = readServerInfo(stateDir);
  return info && forgeServer(info.pid) ? info : undefined;
}

/**
 * Claims `stateDir` for this process, or names the live server that holds it. The claim is a file
 * created only if absent, so of two servers started at once exactly one gets it; a claim left by a
 * server that is gone (killed with -9) is taken over. Given back by removeServerInfo.
 */
export function claimStateDir(stateDir: string): { pid: number } | undefined {
  const file = join(stateDir, SERVE_CLAIM_FILE);
  for (let tries = 0; tries < CLAIM_TRIES; tries++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = claimHolder(file);
    // Empty: another server made the file and has not written its pid yet (or it just went).
    if (holder === undefined) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, CLAIM_WRITE_WAIT_MS); continue; }
    if (forgeServer(holder)) return { pid: holder };
    rmSync(file, { force: true });
  }
  throw new Error(`the state directory ${stateDir} could not be claimed: ${file} keeps changing; is another forge starting there?`);
}

/** The pid a claim file names, or undefined while it is empty or gone. */
function claimHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The claim file of a state dir: the pid of the server that serves it. */
const SERVE_CLAIM_FILE = 'serve.pid';
/** Tries at the claim before giving up: a stale claim taken over, an empty one waited for. */
const CLAIM_TRIES = 10;
/** How long an empty claim file gets to show its pid, ms: it is written straight after it is made. */
const CLAIM_WRITE_WAIT_MS = 20;

export function removeServerInfo(stateDir: string, pid: number): void {
  const info = readServerInfo(stateDir);
  if (info?.pid === pid) rmSync(join(stateDir, 'server.json'), { force: true });
  if (claimHolder(join(stateDir, SERVE_CLAIM_FILE)) === pid) rmSync(join(stateDir, SERVE_CLAIM_FILE), { force: true });
}

/** The folder holding every profile's directory (and beside each, its kept downloads). */
export function profilesRoot(stateDir: string): string {
  return join(stateDir, 'profiles');
}

export function profileDir(stateDir: string, profileKey: string): string {
  const [org, name] = profileKey.split('/');
  return join(profilesRoot(stateDir), org, name);
}

/** The server's own temp dir inside its state dir. */
const SERVER_TMP_DIR = 'tmp';
/** Where the system's temp dir is remembered once the server has pointed TMPDIR at its own. */
export const SYSTEM_TMPDIR_VAR = 'FORGE_SYSTEM_TMPDIR';

/**
 * Points this process's temp files (the browser driver's artifacts for each host it connects to,
 * fixed by the driver when it loads, so this runs first) at `<state>/tmp`, emptied here: a server
 * killed with -9 leaves nothing in the system's temp dir past its next start, and no cleanup
 * touches another process's files there. The system's own is kept in FORGE_SYSTEM_TMPDIR.
 */
export function useOwnTmp(stateDir: string): void {
  process.env[SYSTEM_TMPDIR_VAR] ??= tmpdir();
  const own = join(stateDir, SERVER_TMP_DIR);
  rmSync(own, { recursive: true, force: true });
  mkdirSync(own, { recursive: true, mode: 0o700 });
  process.env.TMPDIR = own;
}
