/**
 * A host's audio sink: a PulseAudio daemon of its own with one null sink, which Chromium plays
 * into instead of being muted: the audio service keeps a real device's clock and format, and
 * nothing reaches a loudspeaker. The sound a controller hears is each tab's own capture (see
 * sound-extension.ts), not the sink's mix.
 *
 * The daemon runs with no system configuration (`-n`, the modules below only), never exits by
 * itself (`--exit-idle-time=-1`), keeps every file (socket, pid, cookie) in a runtime directory
 * under the host's state, and is spawned like Xvfb: detached into a process group of its own and
 * behind `setpriv --pdeathsig`, so the server's sudden death takes it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PULSEAUDIO_BINARY = process.env.FORGE_PULSEAUDIO ?? '/usr/bin/pulseaudio';
const SETPRIV_BINARY = '/usr/bin/setpriv';

/** The null sink's name; its monitor source is `<name>.monitor`. */
export const SINK_NAME = 'forge';
/** The sink's rate, Hz: what pages and Web Audio run at natively, so neither side resamples. */
export const SINK_RATE_HZ = 48_000;
/** Stereo: a page's panning is part of how it sounds. */
export const SINK_CHANNELS = 2;
/** Poll period while waiting for the daemon's socket, ms. */
const SOCKET_POLL_MS = 20;

/** The daemon's settings: its default rate is what Chromium opens its streams and tab captures at. */
function daemonConf(): string {
  return `default-sample-rate = ${SINK_RATE_HZ}\ndefault-sample-channels = ${SINK_CHANNELS}\ndefault-sample-format = s16le\n`;
}

/** The daemon's whole configuration: a null sink at forge's format and the native protocol on a socket in the runtime dir. */
function script(socket: string): string {
  return [
    `load-module module-null-sink sink_name=${SINK_NAME} rate=${SINK_RATE_HZ} channels=${SINK_CHANNELS} format=s16le sink_properties=device.description=forge`,
    `load-module module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
    `set-default-sink ${SINK_NAME}`,
    '',
  ].join('\n');
}

export class AudioSink {
  /** `unix:<socket>`: what PULSE_SERVER names for Chromium and the capture. */
  server = '';
  private child?: ChildProcess;
  private readonly runtimeDir: string;

  constructor(stateDir: string) {
    this.runtimeDir = join(stateDir, 'pulse');
  }

  get pid(): number { return this.child?.pid ?? 0; }

  /** The environment a Pulse client of this sink runs with. */
  clientEnv(): NodeJS.ProcessEnv {
    return { PULSE_SERVER: this.server, PULSE_RUNTIME_PATH: this.runtimeDir, PULSE_COOKIE: join(this.runtimeDir, 'cookie') };
  }

  /** Starts the daemon and waits for its socket; rejects with the reason it did not come up. */
  async start(deadline: number): Promise<void> {
    if (!existsSync(PULSEAUDIO_BINARY)) throw new Error(`${PULSEAUDIO_BINARY} is not installed`);
    rmSync(this.runtimeDir, { recursive: true, force: true });
    mkdirSync(this.runtimeDir, { recursive: true, mode: 0o700 });
    const socket = join(this.runtimeDir, 'native');
    const configFile = join(this.runtimeDir, 'forge.pa');
    writeFileSync(configFile, script(socket));
    const daemonFile = join(this.runtimeDir, 'daemon.conf');
    writeFileSync(daemonFile, daemonConf());
    const child = spawn(SETPRIV_BINARY, [
      '--pdeathsig', 'SIGTERM', '--', PULSEAUDIO_BINARY,
      '--daemonize=no', '--exit-idle-time=-1', '--use-pid-file=no', '--system=no', '--disallow-exit',
      '--disable-shm=yes', '-n', '-F', configFile, '--log-target=stderr', '--log-level=error',
    ], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, PULSE_CONFIG: daemonFile, HOME: this.runtimeDir, XDG_RUNTIME_DIR: this.runtimeDir, XDG_CONFIG_HOME: this.runtimeDir, PULSE_RUNTIME_PATH: this.runtimeDir, PULSE_STATE_PATH: this.runtimeDir },
    });
    this.child = child;
    child.on('error', () => { /* exit follows */ });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000); });
    let exited: string | undefined;
    child.once('exit', (code, signal) => { exited = `PulseAudio exited at start (${signal ?? `code ${code}`}): ${stderr.trim().split('\n').slice(-2).join(' ')}`; });
    while (!existsSync(socket)) {
      if (exited) throw new Error(exited);
      if (Date.now() > deadline) throw new Error('PulseAudio did not open its socket in time');
      await new Promise((r) => setTimeout(r, SOCKET_POLL_MS));
    }
    this.server = `unix:${socket}`;
  }

  /** Whether the daemon runs. */
  get alive(): boolean {
    const c = this.child;
    return !!c?.pid && c.exitCode === null && c.signalCode === null;
  }

  kill(signal: NodeJS.Signals): void {
    if (!this.child?.pid) return;
    try { process.kill(-this.child.pid, signal); } catch { /* already gone */ }
  }

  waitExit(ms: number): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      c.once('exit', () => { clearTimeout(t); resolve(); });
    });
  }

  /** Removes the runtime directory (after the daemon ended). */
  clean(): void {
    rmSync(this.runtimeDir, { recursive: true, force: true });
  }
}
