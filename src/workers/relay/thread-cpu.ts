/** CPU time of the calling thread (user + system), ms, from /proc/thread-self/stat: process.cpuUsage() counts every thread. */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

export function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / USER_HZ;
  } catch {
    return 0;
  }
}
