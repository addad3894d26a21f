/**
 * Process facts for tests, read from /proc. Every server a test run starts inherits
 * FORGE_TEST_RUN, and so do the hosts it spawns; a survivor is a live process carrying this
 * run's tag, so runs side by side on one machine never see each other's processes.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** `pgrp` its process group; `tpgid` its terminal's foreground group (-1 without a terminal). */
export interface Proc { pid: number; ppid: number; cmd: string; pgrp: number; tpgid: number }

export const RUN_TAG_VAR = 'FORGE_TEST_RUN';

export function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue; // a zombie is already dead
      out.push({ pid: Number(name), ppid: Number(fields[1]), cmd, pgrp: Number(fields[2]), tpgid: Number(fields[5]) });
    } catch { /* gone meanwhile */ }
  }
  return out;
}

function environ(pid: number): string {
  try { return readFileSync(`/proc/${pid}/environ`, 'utf8'); } catch { return ''; }
}

/** Chromium, Xvfb, PulseAudio (a host's sink and its capture) and forge server processes that carry `tag` (default: this run's) in their environment. */
export function survivors(tag = process.env[RUN_TAG_VAR]): Proc[] {
  if (!tag) return [];
  return processes().filter((p) => /chromium|Xvfb|pulseaudio|parec|cli\.js serve/.test(p.cmd) && environ(p.pid).split('\0').includes(`${RUN_TAG_VAR}=${tag}`));
}

/** Host processes (Chromium, Xvfb) that descend from or were started by the server `serverPid`. */
export function hostProcessesOf(tag: string): Proc[] {
  return survivors(tag);
}

/** The host's Chromium browser process of the server whose state dir is `stateDir`: the one with that profile dir and no --type. */
export function hostBrowserPid(stateDir: string): number {
  const p = processes().find((x) => x.cmd.includes('/usr/lib/chromium/chromium') && x.cmd.includes(stateDir) && !x.cmd.includes('--type='));
  if (!p) throw new Error('no host Chromium for this server');
  return p.pid;
}

/**
 * Whether a process running `cmd` (its whole command line) is in its terminal's foreground
 * group: the moment a person at the terminal sees the command running, and a Ctrl-C or Ctrl-Z
 * typed then goes to it rather than to the shell still starting it.
 */
export function inForeground(cmd: string): boolean {
  return processes().some((p) => p.cmd === cmd && p.pgrp === p.tpgid);
}
