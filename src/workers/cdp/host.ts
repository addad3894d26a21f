/**
 * A browser host: one Xvfb display and one headful Chromium on it, for one profile key.
 *
 * Each child is spawned detached (its own process group, so stopping kills the whole group,
 * Chromium's zygote and renderers included) and behind `setpriv --pdeathsig`, so the server's
 * sudden death (kill -9) takes them too: Xvfb gets SIGTERM (it removes its own X lock files),
 * Chromium gets SIGKILL. The parent-death signal is tied to the spawning thread, so hosts are
 * spawned from the main thread, which lives as long as the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ForgeError, hostExitedSentence } from '../../shared/errors.js';
import { HOST_START_TIMEOUT_MS } from '../../shared/limits.js';

export const CHROMIUM_BINARY = process.env.FORGE_CHROMIUM ?? '/usr/lib/chromium/chromium';
export const XVFB_BINARY = '/usr/bin/Xvfb';
export const SETPRIV_BINARY = '/usr/bin/setpriv';

/** Xvfb screen, px: large enough to tile one window per tab side by side (no window covers another). */
export const SCREEN_WIDTH = 3840;
export const SCREEN_HEIGHT = 2400;

/** Framebuffer directories are named after the server's pid, so a later server can sweep a dead one's. */
const FB_DIR_PREFIX = '/dev/shm/forge-fb-';

/**
 * Removes framebuffer directories left by servers that died without stopping (kill -9): Xvfb
 * removes its file on the parent-death SIGTERM, not the directory forge made for it.
 */
export function sweepDeadFramebuffers(): void {
  let names: string[];
  try { names = readdirSync('/dev/shm'); } catch { return; }
  for (const name of names) {
    const m = /^forge-fb-(\d+)-/.exec(name);
    if (!m) continue;
    try { process.kill(Number(m[1]), 0); continue; } catch { /* its server is gone */ }
    rmSync(`/dev/shm/${name}`, { recursive: true, force: true });
  }
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
/** Poll period while waiting for DevToolsActivePort, ms. */
const PORT_POLL_MS = 25;

/** Chromium's switches for a host: headful on Xvfb, quiet on a closed network, never backgrounded. */
export function chromiumArgs(userDataDir: string): string[] {
  return [
    '--no-sandbox',
    '--test-type',
    '--hide-scrollbars',
    '--force-device-scale-factor=1',
    '--mute-audio',
    '--password-store=basic',
    '--use-mock-keychain',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
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
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    '--window-position=0,0',
    '--window-size=1280,800',
    `--user-data-dir=${userDataDir}`,
    'about:blank',
  ];
}

export interface HostExit { pid: number; signal: string | null; code: number | null; sentence: string }

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
  cdpPort = 0;
  /** The browser's DevTools websocket URL. */
  wsEndpoint = '';
  private xvfb?: ChildProcess;
  private chromium?: ChildProcess;
  private exitInfo?: HostExit;
  private stopping = false;
  private exitListeners: Array<(e: HostExit) => void> = [];
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

  onExit(cb: (e: HostExit) => void): void {
    if (this.exitInfo) cb(this.exitInfo);
    else this.exitListeners.push(cb);
  }

  async start(): Promise<void> {
    const deadline = Date.now() + HOST_START_TIMEOUT_MS;
    liveHosts.add(this);
    try {
      await this.startXvfb(deadline);
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

  private async startChromium(deadline: number): Promise<void> {
    mkdirSync(this.userDataDir, { recursive: true });
    const portFile = join(this.userDataDir, 'DevToolsActivePort');
    rmSync(portFile, { force: true });
    // A host killed earlier leaves Chromium's singleton lock; no live host of ours holds it now.
    for (const f of ['SingletonLock', 'SingletonSocket', 'SingletonCookie']) rmSync(join(this.userDataDir, f), { force: true });
    markExitedCleanly(join(this.userDataDir, 'Default', 'Preferences'));
    const child = spawn(SETPRIV_BINARY, ['--pdeathsig', 'SIGKILL', '--', CHROMIUM_BINARY, ...chromiumArgs(this.userDataDir)], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DISPLAY: `:${this.display}`, XDG_CONFIG_HOME: join(this.profileDir, 'xdg-config'), XDG_CACHE_HOME: join(this.profileDir, 'xdg-cache') },
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
    while (Date.now() < deadline) {
      if (earlyExit) throw new Error(earlyExit);
      if (existsSync(portFile)) {
        const [port, path] = readFileSync(portFile, 'utf8').split('\n');
        if (port && path) {
          this.cdpPort = Number(port);
          this.wsEndpoint = `ws://127.0.0.1:${port}${path}`;
          return;
        }
      }
      await new Promise((r) => setTimeout(r, PORT_POLL_MS));
    }
    throw new Error('Chromium did not open its DevTools port in time');
  }

  private childExited(which: 'xvfb' | 'chromium', pid: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    // The host is Chromium: its death is the host's death; a lost display kills Chromium too.
    const chromiumPid = which === 'chromium' ? pid : (this.chromium?.pid ?? pid);
    this.exitInfo = { pid: chromiumPid, signal, code, sentence: hostExitedSentence(chromiumPid, signal, code) };
    if (which === 'xvfb') killGroup(this.chromium, 'SIGKILL');
    else killGroup(this.chromium, 'SIGKILL'); // the zygote and renderers go with the browser
    for (const cb of this.exitListeners.splice(0)) cb(this.exitInfo);
    this.resolveExited(this.exitInfo);
    if (!this.stopping) void this.stop();
  }

  /** Ends the host: both process groups, then the X lock files and the framebuffer. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopped;
    this.stopping = true;
    this.stopped = (async () => {
      // The browser alone first: it shuts its own children down and flushes cookies to disk.
      killOne(this.chromium, 'SIGTERM');
      await waitExit(this.chromium, STOP_GRACE_MS);
      killGroup(this.chromium, 'SIGTERM');
      killGroup(this.xvfb, 'SIGTERM');
      await Promise.all([waitExit(this.chromium, STOP_GRACE_MS), waitExit(this.xvfb, STOP_GRACE_MS)]);
      killGroup(this.chromium, 'SIGKILL');
      killGroup(this.xvfb, 'SIGKILL');
      await Promise.all([waitExit(this.chromium, STOP_GRACE_MS), waitExit(this.xvfb, STOP_GRACE_MS)]);
      if (this.display >= 0) {
        rmSync(`/tmp/.X${this.display}-lock`, { force: true });
        rmSync(`/tmp/.X11-unix/X${this.display}`, { force: true });
      }
      if (this.fbDir) rmSync(this.fbDir, { recursive: true, force: true });
      liveHosts.delete(this);
    })();
    return this.stopped;
  }

  /** Ends both process groups at once, synchronously: for the server's own exit. Xvfb gets SIGTERM, so it removes its X lock files. */
  killNow(): void {
    killGroup(this.chromium, 'SIGKILL');
    killGroup(this.xvfb, 'SIGTERM');
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
