/**
 * Process trees from /proc, so the bench can end exactly the processes a server it started left
 * behind (a browser outliving its MCP server), by pid and never by name.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface Proc { pid: number; ppid: number; pgid: number; cmd: string }

function read(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (f[0] === 'Z') return undefined;
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { pid, ppid: Number(f[1]), pgid: Number(f[2]), cmd };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root`. */
export function descendants(root: number): Proc[] {
  const all = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map((n) => read(Number(n))).filter((p): p is Proc => !!p);
  const out: Proc[] = [];
  let frontier = new Set([root]);
  while (frontier.size) {
    const next = all.filter((p) => frontier.has(p.ppid));
    out.push(...next);
    frontier = new Set(next.map((p) => p.pid));
  }
  return out;
}

/** Ends those of `procs` still alive as recorded (same pid, same command line): TERM, then KILL. */
export async function killLeftovers(procs: Proc[]): Promise<void> {
  const alive = (): Proc[] => procs.filter((p) => read(p.pid)?.cmd === p.cmd);
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const left = alive();
    if (!left.length) return;
    for (const p of left) {
      try { process.kill(p.pgid === p.pid ? -p.pid : p.pid, signal); } catch { /* gone */ }
    }
    for (let i = 0; i < 40 && alive().length; i++) await new Promise((r) => setTimeout(r, 50));
  }
}
