/**
 * What a browser host costs its machine: the resident memory and CPU time of every process in
 * its process groups (Chromium's — the browser, its renderers, GPU and utility processes — and
 * its display's), read from /proc. For /metrics and the operators' dashboard; a scrape reads
 * /proc once for all hosts.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface HostUsage { rssBytes: number; cpuSeconds: number; processes: number }

/** The kernel's clock ticks a second, as /proc/<pid>/stat counts CPU time (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;
/** The page size /proc/<pid>/stat counts resident memory in, bytes. */
const PAGE_BYTES = 4096;

/** Usage per group id asked for, from one walk of /proc; a group with no process reads zero. */
export function usageByGroup(groups: number[]): Map<number, HostUsage> {
  const out = new Map<number, HostUsage>(groups.map((g) => [g, { rssBytes: 0, cpuSeconds: 0, processes: 0 }]));
  if (!groups.length) return out;
  let pids: string[];
  try { pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n)); } catch { return out; }
  for (const pid of pids) {
    let stat: string;
    try { stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { continue; } // gone meanwhile
    // The command may hold spaces and brackets: the fields after it start past the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const u = out.get(Number(f[2])); // pgrp
    if (!u) continue;
    u.cpuSeconds += (Number(f[11]) + Number(f[12])) / CLOCK_TICKS_PER_SECOND; // utime + stime
    u.rssBytes += Number(f[21]) * PAGE_BYTES; // rss
    u.processes++;
  }
  return out;
}
