/**
 * A browser host: one Xvfb display and one headful Chromium on it, for one profile key.
 *
 * Each child is spawned detached (its own process group, so stopping kills the whole group,
 * Chromium's zygote and renderers included) and behind `setpriv --pdeathsig`, so the server's
 * sudden death (kill -9) takes them too: Xvfb gets SIGTERM (it removes its own X socket),
 * Chromium gets SIGKILL. The parent-death signal is tied to the spawning thread, so hosts are
 * spawned from the main thread, which lives as long as the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ForgeError, displayExitedSentence, hostExitedSentence } from '../../../shared/errors.js';
import { HOST_START_TIMEOUT_MS } from '../../../shared/limits.js';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from '../../../shared/capture.js';
import { AudioSink } from './audio-sink.js';
import { SOUND_EXTENSION_ID, writeSoundExtension } from './sound-extension.js';
import { makeHostTmp, removeHostTmp } from './host-tmp.js';
import { DevtoolsDoor } from './devtools-door.js';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM_BINARY = process.env.FORGE_CHROMIUM ?? '/usr/lib/chromium/chromium';
export const XVFB_BINARY = '/usr/bin/Xvfb';
export const SETPRIV_BINARY = '/usr/bin/setpriv';

/** Framebuffer directories are named after the server's pid, so a later server can sweep a dead one's. */
const FB_DIR_PREFIX = '/dev/shm/forge-fb-';

/**
 * Removes framebuffer directories left by servers that died without stopping (kill -9): Xvfb
 * removes its file on the parent-death SIGTERM, not the directory forge made for it. Only a
 * directory of this user whose server is known gone is removed: a live server's (whoever's it
 * is), another user's, or one whose pid cannot be checked stays.
 */
export function sweepDeadFramebuffers(): void {
  let names: string[];
  try { names = readdirSync('/dev/shm'); } catch { return; }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = /^forge-fb-(\d+)-/.exec(name);
    if (!m) continue;
    const dir = `/dev/shm/${name}`;
    try {
      if (uid !== undefined && lstatSync(dir).uid !== uid) continue;
      if (!processGone(Number(m[1]))) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch { /* taken meanwhile, or not ours to remove */ }
  }
}

/** Whether `pid` runs (neither gone nor a zombie waiting to be reaped). */
function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Whether no process has this pid: only ESRCH says so (EPERM is another user's live process). */
function processGone(pid: number): boolean {
  try { process.kill(pid, 0); return false; } catch (e) { return (e as NodeJS.ErrnoException).code === 'ESRCH'; }
}

/** Grace between SIGTERM and SIGKILL of a host's process groups, ms. */
const STOP_GRACE_MS = 1500;

/**
 * Hosts whose process groups may still be alive. When the server's process ends without having
 * stopped one (its shutdown ran out of time under load), the parent-death signal reaches only
 * the browser process itself: its renderers and utility processes would live on for a while,
 * still writing into the profile. The exit hook ends every group at once instead.
 */
const liveHosts = new Set<BrowserHost>();
process.once('exit', () => {
  for (const h of liveHosts) h.killNow();
});
/** How long Chromium's exit waits for a display already dead (a zombie) to be reported, ms: Xvfb's end is then the host's cause. */
const DISPLAY_EXIT_REPORT_MS = 500;

/** Longest wait for the audio sink's daemon, ms: it is up in ~100 ms; past this the host starts muted rather than late. */
const AUDIO_START_TIMEOUT_MS = 3_000;

/** How long a Chromium that failed its start is given to exit, so its stderr can say why, ms. */
const EXIT_WORDS_WAIT_MS = 500;
/** The file in the profile's directory that holds the door's endpoint. */
export const DEVTOOLS_ENDPOINT_FILE = 'devtools-endpoint';

/**
 * Chromium's switches for a host: headful on Xvfb, quiet on a closed network, never backgrounded.
 * With `soundExtension` (the host has an audio sink) the page's sound plays and only that
 * extension loads, allowed to capture a tab without a press on it; without, the browser is muted and loads none.
 */
export function chromiumArgs(userDataDir: string, soundExtension?: string): string[] {
  const sound = soundExtension
    ? [`--disable-extensions-except=${soundExtension}`, `--load-extension=${soundExtension}`, `--allowlisted-extension-id=${SOUND_EXTENSION_ID}`]
    : ['--mute-audio', '--disable-extensions'];
  return [
    ...sound,
    '--no-sandbox',
    '--test-type',
    '--hide-scrollbars',
    '--force-device-scale-factor=1',
    '--password-store=basic',
    '--use-mock-keychain',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-breakpad',
    '--disable-crash-reporter',
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    '--disable-background-timer-throttling',
    '--disable-ipc-flooding-protection',
    // An agent's click may open a popup (a sign-in); the per-page popup cap is forge's own.
    '--disable-popup-blocking',
    '--disable-hang-monitor',
    '--disable-session-crashed-bubble',
    // The flag that still hides "Restore pages?" after a killed host (the one above is gone from newer builds).
    '--hide-crash-restore-bubble',
    '--noerrdialogs',
    '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,PaintHolding,AutofillServerCommunication,InterestFeedContentSuggestions,CalculateNativeWinOcclusion',
    // DevTools on fds 3 and 4 only: no port another local user could reach (see devtools-door.ts).
    '--remote-debugging-pipe',
    '--window-position=0,0',
    '--window-size=1280,800',
    `--user-data-dir=${userDataDir}`,
    'about:blank',
  ];
}

/** `pid` is Chromium's; `died` names the process whose end ended the host, `diedPid` its pid. */
export interface HostExit { pid: number; died: 'xvfb' | 'chromium'; diedPid: number; signal: string | null; code: number | null; sentence: string }

export interface HostOptions {
  profileKey: string;
  /** The profile's directory: profiles/<org>/<name>. Chromium's user data lives under it. */
  profileDir: string;
}

export class BrowserHost {
  readonly profileKey: string;
  readonly profileDir: string;
  readonly userDataDir: string;
  display = -1;
  /** The directory holding Xvfb's framebuffer file (XWD), for capture. */
  fbDir = '';
  /** Chromium's TMPDIR, the host's own (see host-tmp.ts). */
  tmpDir = '';
  /** The port of the host's DevTools door (devtools-door.ts): Chromium itself listens on none. */
  cdpPort = 0;
  /** The browser-level DevTools websocket URL of the host's door, with its secret path: forge's own clients connect here. */
  wsEndpoint = '';
  /** The file that holds `wsEndpoint`, readable by forge's own user alone: for its operator's debugging and the tests. */
  get endpointFile(): string { return join(this.profileDir, DEVTOOLS_ENDPOINT_FILE); }
  private door?: DevtoolsDoor;
  /** The host's audio sink, when it started; else `audioProblem` says why the host is muted. */
  audio?: AudioSink;
  audioProblem?: string;
  private xvfb?: ChildProcess;
  private chromium?: ChildProcess;
  private exitInfo?: HostExit;
  private stopping = false;
  /** Chromium's exit held back while its dead display's exit is awaited. */
  private displayWait?: NodeJS.Timeout;
  private exitListeners = new Set<(e: HostExit) => void>();
  readonly exited: Promise<HostExit>;
  private resolveExited!: (e: HostExit) => void;

  constructor(opts: HostOptions) {
    this.profileKey = opts.profileKey;
    this.profileDir = opts.profileDir;
    this.userDataDir = join(opts.profileDir, 'chromium');
    this.exited = new Promise((r) => { this.resolveExited = r; });
  }

  get pid(): number { return this.chromium?.pid ?? 0; }
  get xvfbPid(): number { return this.xvfb?.pid ?? 0; }
  get dead(): HostExit | undefined { return this.exitInfo; }
  get alive(): boolean { return !this.exitInfo && !this.stopping && !!this.chromium; }

  /**
   * Calls `cb` when the host exits (at once when it has). The answer removes it again: a caller
   * that only cares while one call runs must, or every call's listener stays for the host's life.
   */
  onExit(cb: (e: HostExit) => void): () => void {
    if (this.exitInfo) {
      cb(this.exitInfo);
      return () => undefined;
    }
    this.exitListeners.add(cb);
    return () => { this.exitListeners.delete(cb); };
  }

  async start(): Promise<void> {
    const deadline = Date.now() + HOST_START_TIMEOUT_MS;
    liveHosts.add(this);
    try {
      await this.startXvfb(deadline);
      await this.startAudio(deadline);
      await this.startChromium(deadline);
    } catch (e) {
      await this.stop();
      if (e instanceof ForgeError) throw e;
      throw new ForgeError('host_start_failed', `the browser host for ${this.profileKey} could not start: ${(e as Error).message}`);
    }
  }

  private async startXvfb(deadline: number): Promise<void> {
    this.fbDir = mkdtempSync(`${FB_DIR_PREFIX}${process.pid}-`);
    const child = spawn(SETPRIV_BINARY, [
      '--pdeathsig', 'SIGTERM', '--', XVFB_BINARY,
      '-displayfd', '3',
      '-screen', '0', `${SCREEN_WIDTH}x${SCREEN_HEIGHT}x24`,
      '-fbdir', this.fbDir,
      '-nolisten', 'tcp', '-noreset', '-nocursor', '+extension', 'DAMAGE',
    ], { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    this.xvfb = child;
    child.on('error', () => { /* exit follows */ });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000); });
    const display = await new Promise<number>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('Xvfb did not report its display in time')), Math.max(0, deadline - Date.now()));
      (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) { clearTimeout(timer); resolve(Number(out.trim())); }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`Xvfb exited at start (${signal ?? `code ${code}`}): ${stderr.trim().split('\n').slice(-2).join(' ')}`));
      });
    });
    this.display = display;
    child.removeAllListeners('exit');
    child.on('exit', (code, signal) => this.childExited('xvfb', child.pid ?? 0, code, signal));
  }

  /** The audio sink is the host's sound, not its life: when it cannot start, the host starts muted. */
  private async startAudio(deadline: number): Promise<void> {
    const sink = new AudioSink(this.profileDir);
    try {
      await sink.start(Math.min(deadline, Date.now() + AUDIO_START_TIMEOUT_MS));
      this.audio = sink;
    } catch (e) {
      sink.kill('SIGKILL');
      this.audioProblem = (e as Error).message;
    }
  }

  private async startChromium(deadline: number): Promise<void> {
    mkdirSync(this.userDataDir, { recursive: true });
    rmSync(join(this.userDataDir, 'DevToolsActivePort'), { force: true });
    rmSync(this.endpointFile, { force: true });
    clearStaleSingleton(this.userDataDir);
    markExitedCleanly(join(this.userDataDir, 'Default', 'Preferences'));
    const soundExtension = this.audio ? writeSoundExtension(join(this.profileDir, 'sound-extension')) : undefined;
    this.tmpDir = makeHostTmp(this.profileDir);
    const child = spawn(SETPRIV_BINARY, ['--pdeathsig', 'SIGKILL', '--', CHROMIUM_BINARY, ...chromiumArgs(this.userDataDir, soundExtension)], {
      detached: true,
      // fd 3: Chromium reads DevTools commands; fd 4: it writes answers and events.
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...(this.audio?.clientEnv() ?? {}), DISPLAY: `:${this.display}`, XDG_CONFIG_HOME: join(this.profileDir, 'xdg-config'), XDG_CACHE_HOME: join(this.profileDir, 'xdg-cache'), TMPDIR: this.tmpDir },
    });
    this.chromium = child;
    child.on('error', () => { /* exit follows */ });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
    let earlyExit: string | undefined;
    child.on('exit', (code, signal) => {
      earlyExit = `Chromium exited at start (${signal ?? `code ${code}`}): ${stderr.trim().split('\n').slice(-2).join(' ')}`;
      this.childExited('chromium', child.pid ?? 0, code, signal);
    });
    const door = new DevtoolsDoor(child.stdio[3] as Writable, child.stdio[4] as Readable, () => killGroup(child, 'SIGKILL'));
    this.door = door;
    try {
      await door.open(deadline);
    } catch (e) {
      // Chromium's own last words say more than a closed pipe.
      await waitExit(child, EXIT_WORDS_WAIT_MS);
      throw new Error(earlyExit ?? (e as Error).message);
    }
    this.cdpPort = door.port;
    this.wsEndpoint = door.url;
    writeFileSync(this.endpointFile, `${door.url}\n`, { mode: 0o600 });
  }

  private childExited(which: 'xvfb' | 'chromium', pid: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    if (which === 'chromium' && !this.displayWait && this.displayDiedUnreported()) {
      // Chromium ended because its display did: Xvfb's own exit, reported in a moment, is the cause.
      this.displayWait = setTimeout(() => this.hostEnded('chromium', pid, code, signal), DISPLAY_EXIT_REPORT_MS);
      this.displayWait.unref();
      return;
    }
    this.hostEnded(which, pid, code, signal);
  }

  /** Xvfb is dead (gone or a zombie) but its exit has not been reported yet. */
  private displayDiedUnreported(): boolean {
    const x = this.xvfb;
    return !this.stopping && !!x?.pid && x.exitCode === null && x.signalCode === null && !processRunning(x.pid);
  }

  private hostEnded(which: 'xvfb' | 'chromium', pid: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    clearTimeout(this.displayWait);
    // The host is Chromium: its death is the host's death; a lost display kills Chromium too,
    // and the sentence names what really died.
    const chromiumPid = which === 'chromium' ? pid : (this.chromium?.pid ?? 0);
    const sentence = which === 'xvfb' ? displayExitedSentence(pid, signal, code, chromiumPid) : hostExitedSentence(pid, signal, code);
    this.exitInfo = { pid: chromiumPid, died: which, diedPid: pid, signal, code, sentence };
    killGroup(this.chromium, 'SIGKILL'); // the zygote and renderers go with the browser
    const listeners = [...this.exitListeners];
    this.exitListeners.clear();
    for (const cb of listeners) cb(this.exitInfo);
    this.resolveExited(this.exitInfo);
    if (!this.stopping) void this.stop();
  }

  /** Ends the host: both process groups, then its own framebuffer directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopped;
    this.stopping = true;
    this.stopped = (async () => {
      // The browser alone first: it shuts its own children down and flushes cookies to disk.
      killOne(this.chromium, 'SIGTERM');
      await waitExit(this.chromium, STOP_GRACE_MS);
      killGroup(this.chromium, 'SIGTERM');
      killGroup(this.xvfb, 'SIGTERM');
      this.audio?.kill('SIGTERM');
      await Promise.all([waitExit(this.chromium, STOP_GRACE_MS), waitExit(this.xvfb, STOP_GRACE_MS), this.audio?.waitExit(STOP_GRACE_MS)]);
      killGroup(this.chromium, 'SIGKILL');
      killGroup(this.xvfb, 'SIGKILL');
      this.audio?.kill('SIGKILL');
      await Promise.all([waitExit(this.chromium, STOP_GRACE_MS), waitExit(this.xvfb, STOP_GRACE_MS), this.audio?.waitExit(STOP_GRACE_MS)]);
      this.audio?.clean();
      // The display's files are Xvfb's own, never removed here: started with -displayfd it takes
      // no lock file, its SIGTERM removes its socket, and after a kill -9 the next Xvfb to take
      // that number replaces the stale socket. By now that next Xvfb may well own the number.
      this.door?.close();
      rmSync(this.endpointFile, { force: true });
      if (this.fbDir) rmSync(this.fbDir, { recursive: true, force: true });
      removeHostTmp(this.tmpDir);
      liveHosts.delete(this);
    })();
    return this.stopped;
  }

  /** Ends both process groups at once, synchronously: for the server's own exit. Xvfb gets SIGTERM, so it removes its X socket. */
  killNow(): void {
    killGroup(this.chromium, 'SIGKILL');
    killGroup(this.xvfb, 'SIGTERM');
    this.audio?.kill('SIGKILL');
  }
  private stopped: Promise<void> = Promise.resolve();
}

function killOne(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try { process.kill(child.pid, signal); } catch { /* already gone */ }
}

function killGroup(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (!child?.pid) return;
  try { process.kill(-child.pid, signal); } catch { /* already gone */ }
}

function waitExit(child: ChildProcess | undefined, ms: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    child.once('exit', () => { clearTimeout(t); resolve(); });
  });
}

/**
 * A host killed earlier leaves its profile marked as crashed, and Chromium would offer to restore
 * its pages over the next host's first page: the profile is marked as having exited cleanly.
 */
function markExitedCleanly(prefsFile: string): void {
  let prefs: Record<string, unknown>;
  try { prefs = JSON.parse(readFileSync(prefsFile, 'utf8')) as Record<string, unknown>; } catch { return; }
  const profile = (prefs.profile ?? {}) as Record<string, unknown>;
  if (profile.exit_type === 'Normal' && profile.exited_cleanly === true) return;
  prefs.profile = { ...profile, exit_type: 'Normal', exited_cleanly: true };
  writeFileSync(prefsFile, JSON.stringify(prefs));
}

/** Chromium's profile lock files: SingletonLock is a symlink to `<hostname>-<pid>` of the Chromium holding the profile. */
const SINGLETON_FILES = ['SingletonLock', 'SingletonSocket', 'SingletonCookie'];

/**
 * A host killed earlier leaves Chromium's profile lock behind, and the next Chromium would refuse
 * the profile. The lock is removed only when it names a Chromium of this machine that is gone; a
 * lock a live Chromium holds is that Chromium's, and the start is refused in words instead.
 */
function clearStaleSingleton(userDataDir: string): void {
  let target: string;
  try { target = readlinkSync(join(userDataDir, 'SingletonLock')); } catch { return; }
  const m = /^(.*)-(\d+)$/.exec(target);
  if (m && m[1] === hostname()) {
    const pid = Number(m[2]);
    if (!processGone(pid) && holdsProfile(pid, userDataDir)) {
      throw new ForgeError('host_start_failed', `the profile's Chromium is already running (pid ${pid}, ${userDataDir}); forge does not start a second one on the same profile`);
    }
  }
  for (const f of SINGLETON_FILES) rmSync(join(userDataDir, f), { force: true });
}

/** Whether the live process `pid` is a Chromium on this user data directory (and not a pid reused since). */
function holdsProfile(pid: number, userDataDir: string): boolean {
  try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(`--user-data-dir=${userDataDir}`); } catch { return !processGone(pid); }
}
