/** Process facts for tests: which Chromium and Xvfb processes are alive, read from /proc. */
import { readdirSync, readFileSync } from 'node:fs';

export interface Proc { pid: number; ppid: number; cmd: string }

export function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue; // a zombie is already dead
      out.push({ pid: Number(name), ppid: Number(fields[1]), cmd });
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** Hosts forge starts: Xvfb and the Debian Chromium binary (not the test's own headless browser). */
export function survivors(): Proc[] {
  return processes().filter((p) => /\/usr\/lib\/chromium\/chromium|\/usr\/bin\/Xvfb|(^| )Xvfb /.test(p.cmd) && !p.cmd.includes('--headless'));
}
